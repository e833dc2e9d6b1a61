// Command bare is the reference for test/startup: the least a Go program
// does to send yagent's requests — an openai-go client streaming twenty chat
// completions from OPENAI_BASE_URL, one after the other. Its time to the
// first request and its peak RSS are the floor yagent's are compared with.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() {
	client := openai.NewClient(option.WithBaseURL(os.Getenv("OPENAI_BASE_URL")), option.WithAPIKey("k"), option.WithMaxRetries(0))
	params := openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("[agent:director] bare"), openai.UserMessage("go")},
	}
	for range 20 {
		stream := client.Chat.Completions.NewStreaming(context.Background(), params)
		for stream.Next() {
		}
		if err := stream.Err(); err != nil {
			fmt.Fprintln(os.Stderr, "bare:", err)
			os.Exit(1)
		}
		stream.Close()
	}
}

package shellprefix

import (
	"strings"
	"testing"
)

// TestSedRuns pins the sed script reader command by command and address
// by address: each harmless form reads as harmless, and an e command (or
// the e flag of s) right after it is still found; a script it cannot read
// counts as running.
func TestSedRuns(t *testing.T) {
	for _, tt := range []struct {
		script string
		runs   bool
	}{
		{"", false},
		{" ;\n\t;", false},
		// Addresses, then a harmless command and then e.
		{"1p", false}, {"1e id", true}, {"12,34p", false}, {"12,34e id", true},
		{"1~2p", false}, {"1~2e id", true}, {"$p", false}, {"$e id", true},
		{"$!p", false}, {"$!e id", true}, {"1!!p", false}, {"1 ! e id", true},
		{"/x/p", false}, {"/x/e id", true}, {"/a\\/b/p", false}, {"/a\\/b/e id", true},
		{"/x", true}, {"/x\\/", true},
		{"\\%x%p", false}, {"\\%x%e id", true}, {"\\%x", true}, {"\\", true},
		{"/x/Ip", false}, {"/x/MIe id", true}, {"/x/I,/y/Mp", false},
		{"0,/x/p", false}, {"1,+2p", false}, {"1,+2e id", true}, {"1,~4p", false}, {"1,~4e id", true},
		{"1 , 3 p", false}, {"1 ,3 e id", true}, {"1,/x", true}, {"1,", false},
		{"2", false},
		// Every digit, at the start of an address, inside it, after + and ~.
		{"9p", false}, {"9e id", true}, {"19p", false}, {"1~9p", false}, {"1,+0p", false}, {"1,+9p", false}, {"1,+9e id", true}, {"1,+3", false},
		// Commands without arguments.
		{"{p}", false}, {"=", false}, {"d;D;g;G;h;H;n;N;p;P;x;z;F", false}, {"1{\ne id\n}", true},
		{"e", true}, {"E", true}, {"k", true},
		// s: parts, flags, the file of w.
		{"s/a/b/", false}, {"s/a/b/e", true}, {"s/a/b/ge", true}, {"s/a/b/3pe", true}, {"s/a/b/gpiImM0123456789", false}, {"s/a/b/gi;e id", true},
		{"s/a/b/;e id", true}, {"s/a/b/x", false}, {"s/a/b/w out.txt;e id", false}, {"s/a/b/w out\ne id", true},
		{"s/a\\/b/c/e", true}, {"s/a\\/b/c/", false}, {"s|a|b|e", true}, {"s|a|b|g;p", false},
		{"s", true}, {"s\nx", true}, {"s\\a\\b\\", true}, {"s/a/b", true}, {"s/a", true},
		// y.
		{"y/ab/cd/", false}, {"y/ab/cd/;e id", true}, {"y", true}, {"y\n", true}, {"y\\a\\b\\", true}, {"y/ab/cd", true},
		// Text of a, i, c: to the end of the line, a backslash continues it.
		{"a hello", false}, {"a hello\ne id", true}, {"a\\\ne id", false}, {"i\\\ne id\ne id", true}, {"c x\\\\\ne id", true},
		// File names and comments to the end of the line.
		{"r f;e id", false}, {"r f\ne id", true}, {"R f;e", false}, {"w f;e", false}, {"W f;e", false},
		{"# e id", false}, {"#n\ne id", true},
		// Labels end at a semicolon.
		{"b end;e id", true}, {"b", false}, {":a;e id", true}, {"t x", false}, {"T x\ne id", true}, {"v;p", false},
		// Exit codes and line lengths.
		{"q5", false}, {"q 5;e id", true}, {"Q", false}, {"l 10", false}, {"L 7;p", false}, {"l 1e id", true},
		{"q0", false}, {"q9", false}, {"q09;e id", true},
	} {
		if got := sedRuns(tt.script); got != tt.runs {
			t.Errorf("sedRuns(%q) = %v; want %v", tt.script, got, tt.runs)
		}
	}
}

// TestSedCommandLine pins how a sed command line's scripts are found: the
// first operand unless -e/--expression gave one, every -e, nothing after
// -- but operands, -f in any spelling, and the options that take a value.
func TestSedCommandLine(t *testing.T) {
	for _, tt := range []struct {
		args string
		runs bool
	}{
		{"p f", false}, {"s/x/y/e f", true},
		{"p s/x/y/e", false},              // the second operand is a file
		{"-e p s/x/y/e", false},           // with -e every operand is a file
		{"-n s/x/y/e", true},              // -n takes no value
		{"-e p -e 1e", true},              // every -e
		{"-es/x/y/e f", true},             // attached
		{"-nes/x/y/e f", true},            // in a cluster
		{"-ne 1e f", true},                // the next word
		{"-e", false},                     // -e and nothing: an empty script
		{"--expression=p f", false},       // long, attached
		{"--expression 1e f", true},       // long, the next word
		{"--expr=1e f", true},             // abbreviated
		{"--file=x.sed", true},            // a script sed reads from a file
		{"--fi x.sed", true},              // abbreviated
		{"-nf x.sed", true},               // in a cluster
		{"-f p", true},                    // a file named like a harmless script
		{"-e p -f x.sed", true},           // beside -e
		{"-- s/x/y/e f", true},            // after --, the first operand
		{"-- -n", true},                   // after --, -n is an operand: the script "-n" cannot be read
		{"-n -- p s/x/y/e", false},        // the second operand after -- is a file
		{"- p", true},                     // the script "-" cannot be read
		{"--line-length 1e p", false},     // --line-length takes the next word
		{"--line-length=5 s/x/y/e", true}, // ...or an attached one
		{"-l 1e p", false},                // -l takes the next word
		{"-l5 s/x/y/e", true},             // ...or an attached one
		{"-nl 1e p", false},               // -l last in a cluster takes the next word
		{"-i.bak s/x/y/e f", true},        // -i takes only an attached suffix
		{"-i p s/x/y/e", false},           // the script is the first operand
		{"-s -E -r -z -u --posix s/x/y/e", true},
		{"--debug --sandbox p f", false},
	} {
		args := strings.Fields(tt.args)
		if got := sedCommand("sed", args); (got != "") != tt.runs {
			t.Errorf("sed %s: %q; want runs = %v", tt.args, got, tt.runs)
		}
	}
}

// TestCommandEdges pins the edges of the option readers: git's global
// options that take a value, an empty word list, options only, an empty
// long option, and the programs whose check passes.
func TestCommandEdges(t *testing.T) {
	for _, tt := range []struct {
		command string
		runs    bool
	}{
		{"git --namespace config status", false}, // "config" is --namespace's value
		{"git --super-prefix config status", false},
		{"git --attr-source config log", false},
		{"git --namespace ns config x", true},
		{"git", false}, {"git -P --no-pager", false},
		{"git --exec-path=/tmp status", true}, {"git --bare log", true}, {"git --work-tree=x status", true},
		{"git ls-remote -u x origin", true}, {"git ls-remote origin", false},
		{"git init --template=t", true}, {"git init", false},
		{"git fetch --upload-pack=x", true}, {"git pull origin", false},
		{"git push --exec=x", true}, {"git push origin", false},
		{"git clone -c x=y url", true}, {"git clone url", false},
		{"git submodule foreach id", true}, {"git submodule update", false},
		{"npm --silent", false}, {"npm", false},
		{"rg --=x pattern", false}, {"rg --pr=x pattern", true},
		{"zip a.zip f", false}, {"zip -TT=sh a.zip f", true}, {"zip --unzip-command sh a.zip", true},
		{"cmake --build .", false}, {"cmake -E env X=1 sh", true},
	} {
		if got := Command(strings.Fields(tt.command)); (got != "") != tt.runs {
			t.Errorf("Command(%q) = %q; want runs = %v", tt.command, got, tt.runs)
		}
	}
	if Command(nil) != "" {
		t.Error("Command(nil) runs something")
	}
	for _, tt := range []struct {
		prefix string
		ok     bool
	}{
		{"git -P status", true}, {"git --no-pager --no-advice diff", true},
		{"git --frobnicate status", false}, {"git -P", false}, {"git -P st", false},
	} {
		if why := Prefix(strings.Fields(tt.prefix)); (why == "") != tt.ok {
			t.Errorf("Prefix(%q) = %q; want allowed = %v", tt.prefix, why, tt.ok)
		}
	}
	// The reason says what a prefix may hold.
	if why := Prefix([]string{"git", "--frobnicate", "status"}); !strings.Contains(why, "harmless options (-P, --no-pager") {
		t.Errorf("Prefix(git --frobnicate status) = %q; want it to name the harmless options", why)
	}
}

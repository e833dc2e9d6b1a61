package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchWords is the vocabulary of the synthetic corpus; sampled with a
// Zipf distribution, so a few words are everywhere and most are rare.
var benchWords = strings.Fields(`
	service deploy release rollback cluster node pool database index query cache latency budget
	incident postmortem pager alert dashboard metric trace log retention backup restore schema
	migration table column token secret rotation policy review approval branch merge commit test
	flaky pipeline runner artifact image container registry network gateway proxy certificate
	timeout retry backoff queue worker scheduler cron batch stream partition replica leader
	election quorum snapshot compaction storage volume disk memory cpu thread lock mutex
	contract invoice billing customer account tenant region zone failover capacity forecast
	roadmap milestone estimate risk decision tradeoff design proposal feedback onboarding
	handbook glossary runbook checklist template meeting notes agenda owner stakeholder
	развертывание сервис релиз откат кластер база индекс запрос кэш задержка инцидент
	дежурство алерт метрика журнал резервная копия схема миграция таблица токен секрет
	ревью ветка тест пайплайн образ контейнер сеть сертификат очередь воркер планировщик
	реплика снапшот хранилище память процессор договор счет клиент регион мощность решение`)

func benchCorpus(n int, seed uint64) []NoteDraft {
	r := rand.New(rand.NewPCG(seed, 42))
	zipf := rand.NewZipf(r, 1.2, 4, uint64(len(benchWords)-1))
	word := func() string { return benchWords[zipf.Uint64()] }
	drafts := make([]NoteDraft, n)
	for i := range drafts {
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d %s %s\n\n", i, word(), word())
		for p := 0; p < 3; p++ {
			for w := 0; w < 40; w++ {
				b.WriteString(word())
				b.WriteByte(' ')
			}
			b.WriteString("\n\n")
		}
		if i > 0 && r.IntN(4) == 0 {
			fmt.Fprintf(&b, "See [[Note %d]].\n", r.IntN(i))
		}
		drafts[i] = NoteDraft{Body: b.String(), Path: fmt.Sprintf("area%d/topic%d", i%7, i%31), Tags: []string{word()}}
	}
	return drafts
}

var benchQueries = []string{
	"how do we roll back a release?", "database migration schema", "flaky test pipeline",
	"certificate rotation policy", "who owns the billing invoices", "cluster failover quorum",
	"как сделать откат релиза?", "миграция схемы базы", "backup restore retention", "latency budget dashboard",
}

// benchStore fills a new store with n notes through create_notes and
// reports the throughput.
func benchStore(b *testing.B, be backend, n int, emb Embedder) (*Store, *fixture, time.Duration) {
	b.Helper()
	f := newFixture(b, be, Options{Embedder: emb, Now: time.Now})
	start := time.Now()
	drafts := benchCorpus(n, 1)
	for i := 0; i < n; i += maxBatch {
		out, err := f.s.CreateNotes(context.Background(), f.agent, CreateNotesInput{Project: "acme/web", Notes: drafts[i:min(i+maxBatch, n)]})
		if err != nil || out.Failed > 0 {
			b.Fatalf("CreateNotes: %v (%d failed: %+v)", err, out.Failed, out.Results[0])
		}
	}
	return f.s, f, time.Since(start)
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	p := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.95), "p95-ms")
}

// benchDims is the embedding size of the hybrid benchmarks: 256, or
// KB_BENCH_DIMS (1536 is typical of hosted models).
func benchDims() int {
	if d, err := strconv.Atoi(os.Getenv("KB_BENCH_DIMS")); err == nil && d > 0 {
		return d
	}
	return 256
}

// benchSearch reports search latency on each backend, side by side.
func benchSearch(b *testing.B, n int) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) { benchSearchOn(b, be, n) })
	}
}

func benchSearchOn(b *testing.B, be backend, n int) {
	s, f, built := benchStore(b, be, n, HashEmbedder{Dims: benchDims()})
	b.Logf("built %d notes on %s (hybrid, %d-dim hash embedder) in %v: %.0f notes/s", n, be.name, benchDims(), built, float64(n)/built.Seconds())
	ftsOnly := be.reopen(b, f.target, Options{})
	for _, tc := range []struct {
		name string
		s    *Store
		mode string
	}{{"fts", ftsOnly, "fts"}, {"hybrid", s, "hybrid"}} {
		b.Run(tc.name, func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				q := benchQueries[i%len(benchQueries)]
				i++
				t0 := time.Now()
				out, err := tc.s.Search(context.Background(), f.reader, SearchInput{Query: q})
				lat = append(lat, time.Since(t0))
				if err != nil || out.Mode != tc.mode || len(out.Results) == 0 {
					b.Fatalf("Search(%q) = %d results, mode %s, %v", q, len(out.Results), out.Mode, err)
				}
			}
			reportPercentiles(b, lat)
		})
	}
}

func BenchmarkSearch10k(b *testing.B) { benchSearch(b, 10_000) }

// BenchmarkSearch100k needs KB_BENCH_LARGE=1 (it builds for minutes).
func BenchmarkSearch100k(b *testing.B) {
	if testing.Short() || os.Getenv("KB_BENCH_LARGE") == "" {
		b.Skip("set KB_BENCH_LARGE=1 (and drop -short) to build 100 000 notes")
	}
	benchSearch(b, 100_000)
}

func BenchmarkRecall10k(b *testing.B) {
	_, f, _ := benchStore(b, sqliteBackend, 10_000, nil)
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := benchQueries[i%len(benchQueries)]
		i++
		t0 := time.Now()
		out, err := f.s.Recall(context.Background(), f.reader, RecallInput{Topic: q})
		lat = append(lat, time.Since(t0))
		if err != nil || len(out.Notes) == 0 || out.UsedTokens > out.BudgetTokens {
			b.Fatalf("Recall(%q) = %+v, %v", q, out, err)
		}
	}
	reportPercentiles(b, lat)
}

// BenchmarkCreateNotes measures bulk create_notes (batches of 100 into a
// store that grows as it runs).
func BenchmarkCreateNotes(b *testing.B) {
	for _, tc := range []struct {
		name string
		emb  Embedder
	}{{"fts", nil}, {"hashembed", HashEmbedder{}}} {
		b.Run(tc.name, func(b *testing.B) {
			f := newFixture(b, sqliteBackend, Options{Embedder: tc.emb, Now: time.Now})
			drafts := benchCorpus(maxBatch*50, 2)
			i := 0
			for b.Loop() {
				batch := make([]NoteDraft, maxBatch)
				for j := range batch {
					batch[j] = drafts[(i*maxBatch+j)%len(drafts)]
					batch[j].Body = fmt.Sprintf("# Batch %d item %d\n\n%s", i, j, batch[j].Body[strings.Index(batch[j].Body, "\n"):])
				}
				i++
				out, err := f.s.CreateNotes(context.Background(), f.agent, CreateNotesInput{Project: "acme/web", Notes: batch})
				if err != nil || out.Failed > 0 {
					b.Fatalf("CreateNotes: %v, %d failed", err, out.Failed)
				}
			}
			b.ReportMetric(float64(b.N*maxBatch)/b.Elapsed().Seconds(), "notes/s")
		})
	}
}

// BenchmarkImport measures importing a generated vault of 2000 files in
// folders, with [[links]] between them, into an empty project (notes/s).
func BenchmarkImport(b *testing.B) {
	dir := b.TempDir()
	const n = 2000
	for i, d := range benchCorpus(n, 3) {
		p := filepath.Join(dir, filepath.FromSlash(d.Path), fmt.Sprintf("note %d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\ntags: ["+d.Tags[0]+"]\n---\n"+d.Body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var total time.Duration
	for b.Loop() {
		f := newFixture(b, sqliteBackend, Options{Now: time.Now})
		start := time.Now()
		rep, err := f.s.Import(context.Background(), f.agent, dir, "acme/web", ImportOptions{})
		total += time.Since(start)
		if err != nil || rep.Created != n {
			b.Fatalf("Import = %+v, %v", rep, err)
		}
	}
	b.ReportMetric(float64(b.N*n)/total.Seconds(), "notes/s")
}

package nexmark

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/types"
)

func allFields(t TableType) ([]int, []types.T) {
	cols := Columns(t)
	fields := []int{FieldEventNumber}
	ts := []types.T{types.TInt8}
	for i, c := range cols {
		fields = append(fields, i)
		ts = append(ts, c.T)
	}
	return fields, ts
}

// readAll reads every row of cfg, reopening the reader after every batch
// when resume is set (as a recovery does, from the last positions).
func readAll(t *testing.T, cfg Config, batch int, resume bool) []string {
	t.Helper()
	r, err := NewReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		b := r.Next(batch)
		if b.Chunk == nil {
			break
		}
		for i := range b.Chunk.Len() {
			var sb strings.Builder
			for j, d := range b.Chunk.Row(i) {
				sb.WriteString(types.FormatText(d, cfg.Types[j], time.UTC) + "|")
			}
			rows = append(rows, sb.String())
		}
		if resume {
			cfg.Positions = b.Positions
			if r, err = NewReader(cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
	return rows
}

func TestKindsAndCounts(t *testing.T) {
	counts := map[TableType]int64{}
	for n := range int64(1000) {
		counts[KindOf(n)]++
	}
	if counts[Person] != 20 || counts[Auction] != 60 || counts[Bid] != 920 {
		t.Fatalf("1000 events hold %v, want 20 people, 60 auctions, 920 bids", counts)
	}
	for _, k := range []TableType{Person, Auction, Bid} {
		var seen int64
		for n := range int64(777) {
			if KindOf(n) == k {
				if got := EventNumber(k, seen); got != n {
					t.Fatalf("%s %d: event %d, want %d", k, seen, got, n)
				}
				seen++
			}
		}
		if got := CountBefore(k, 777); got != seen {
			t.Fatalf("CountBefore(%s, 777) = %d, want %d", k, got, seen)
		}
	}
}

// TestReplayAndSplits: a reader resumed from the positions after every
// batch, and readers over 1 or 3 splits, produce the same rows in the
// same order as one uninterrupted reader.
func TestReplayAndSplits(t *testing.T) {
	for _, k := range []TableType{Person, Auction, Bid} {
		f, ts := allFields(k)
		cfg := Config{Table: k, EventNum: 5000, Clock: Clock{BaseMillis: 1_700_000_000_000}, Splits: 1, Fields: f, Types: ts}
		want := readAll(t, cfg, 1024, false)
		if int64(len(want)) != CountBefore(k, 5000) {
			t.Fatalf("%s: %d rows, want %d", k, len(want), CountBefore(k, 5000))
		}
		if got := readAll(t, cfg, 37, true); !slices.Equal(got, want) {
			t.Fatalf("%s: resumed reader differs", k)
		}
		cfg.Splits = 3
		if got := readAll(t, cfg, 100, true); !slices.Equal(got, want) {
			t.Fatalf("%s: 3 splits differ from 1", k)
		}
	}
}

func TestBidModel(t *testing.T) {
	g := NewGenerator(Clock{BaseMillis: 0})
	var hotAuction, hotChannel, size int
	prices := [3]int{}
	n := 0
	for e := int64(0); e < 200_000; e++ {
		if KindOf(e) != Bid {
			continue
		}
		b := g.Bid(e)
		n++
		if b.Auction == lastAuctionID(e)/hotRound*hotRound+firstAuctionID {
			hotAuction++
		}
		if !strings.HasPrefix(b.Channel, "channel-") {
			hotChannel++
		} else if !strings.HasPrefix(b.URL, "https://www.nexmark.com/") {
			t.Fatalf("url %q", b.URL)
		}
		if b.Price < 100 || b.Price > 100_000_000 {
			t.Fatalf("price %d out of range", b.Price)
		}
		switch {
		case b.Price < 10_000:
			prices[0]++
		case b.Price < 1_000_000:
			prices[1]++
		default:
			prices[2]++
		}
		if b.Auction < firstAuctionID || b.Auction > lastAuctionID(e)+firstAuctionID+auctionIDLead {
			t.Fatalf("event %d: auction %d beyond the last %d", e, b.Auction, lastAuctionID(e)+firstAuctionID)
		}
		if b.DateTime != int64(math.Round(float64(e)/10)) {
			t.Fatalf("event %d at %d ms", e, b.DateTime)
		}
		size += 32 + len(b.Extra)
	}
	frac := func(k int) float64 { return float64(k) / float64(n) }
	// Half the bids are on the hot auction (plus the random ones that hit it).
	if f := frac(hotAuction); f < 0.48 || f > 0.56 {
		t.Errorf("hot auction share %.3f, want about 0.5", f)
	}
	if f := frac(hotChannel); f < 0.48 || f > 0.52 {
		t.Errorf("hot channel share %.3f, want about 0.5", f)
	}
	for i, p := range prices {
		if f := frac(p); f < 0.31 || f > 0.36 {
			t.Errorf("price band %d share %.3f, want about 1/3", i, f)
		}
	}
	if avg := float64(size) / float64(n); avg < 95 || avg > 105 {
		t.Errorf("average bid size %.1f bytes, want about %d", avg, avgBidBytes)
	}
}

func TestAuctionAndPerson(t *testing.T) {
	g := NewGenerator(Clock{BaseMillis: 0})
	for e := int64(0); e < 50_000; e++ {
		switch KindOf(e) {
		case Auction:
			a := g.Auction(e)
			if a.ID != lastAuctionID(e)+firstAuctionID || a.Expires <= a.DateTime || a.Reserve < a.InitialBid {
				t.Fatalf("event %d: %+v", e, a)
			}
			if a.Category < 10 || a.Category > 14 || a.Seller < firstPersonID || a.Seller > lastPersonID(e)+firstPersonID+personIDLead {
				t.Fatalf("event %d: %+v", e, a)
			}
		case Person:
			p := g.Person(e)
			if p.ID != e/50+firstPersonID || !slices.Contains(usStates, p.State) || len(p.CreditCard) != 19 || !strings.HasSuffix(p.EmailAddress, ".com") {
				t.Fatalf("event %d: %+v", e, p)
			}
		}
	}
	if a, b := g.Bid(7), g.Bid(7); a != b {
		t.Fatalf("event 7 twice: %+v and %+v", a, b)
	}
}

func TestCheckColumn(t *testing.T) {
	if err := CheckColumn(Bid, 5, types.TTimestamptz); err != nil {
		t.Fatal(err)
	}
	if err := CheckColumn(Bid, 0, types.TInt4); err != nil {
		t.Fatal(err)
	}
	if err := CheckColumn(Bid, 3, types.TInt8); err == nil {
		t.Fatal("channel as bigint accepted")
	}
}

func TestQueriesAndDDL(t *testing.T) {
	qs := Queries()
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
		if len(q.Tables) == 0 {
			t.Errorf("%s reads no source", q.Name)
		}
	}
	want := "q0 q1 q2 q3 q4 q5 q6 q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("queries %s, want %s", got, want)
	}
	P, A, B := Person, Auction, Bid
	reads := map[string][]TableType{"q3": {P, A}, "q4": {A, B}, "q6": {A, B}, "q8": {P, A}, "q9": {A, B}, "q20": {A, B}}
	for _, q := range qs {
		want, ok := reads[q.Name]
		if !ok {
			want = []TableType{B}
		}
		if !slices.Equal(q.Tables, want) {
			t.Errorf("%s reads %v, want %v", q.Name, q.Tables, want)
		}
	}
	for _, q := range qs {
		if (q.Name == "q13") != (len(q.Setup) > 0) {
			t.Errorf("%s has setup statements %q", q.Name, q.Setup)
		}
	}
	if q, _ := QueryByName("q13"); len(q.Setup) != 2 || !strings.HasPrefix(q.Setup[0], "CREATE TABLE side_input") || !strings.HasPrefix(q.Setup[1], "INSERT INTO side_input") {
		t.Errorf("q13's setup: %q", q.Setup)
	}
	if q, ok := QueryByName("8"); !ok || q.Name != "q8" {
		t.Fatalf("QueryByName(8) = %v, %v", q.Name, ok)
	}
	ddl := DDL(Bid, SourceOptions{Events: 10, Watermark: true})
	for _, s := range []string{"CREATE SOURCE bid (auction bigint", "WATERMARK FOR date_time", "nexmark.table.type = 'Bid'", "nexmark.event.num = '10'"} {
		if !strings.Contains(ddl, s) {
			t.Errorf("DDL %q lacks %q", ddl, s)
		}
	}
}

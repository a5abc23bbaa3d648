package main

// weir replay: produce a file of flights to a Kafka topic in event-time
// order with a bounded amount of out-of-order jitter, for the flights
// example (examples/flights).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const replayUsage = `weir replay flags:
  --brokers ADDR[,ADDR]  Kafka bootstrap brokers (default 127.0.0.1:9092)
  --topic NAME           topic to produce to (default flights)
  --file PATH            flights as a JSON array or JSON lines of objects with
                         date ("2001/01/01 00:47" or ISO 8601), delay, distance,
                         origin, destination (required)
  --rate N               produce at most N records per second (default 0: as fast
                         as possible)
  --speedup X            pace by event time: X seconds of event time per second
                         (default 0: off; not together with --rate)
  --jitter-ms J          shuffle records by up to J milliseconds of event time: no
                         record is produced after one whose event time is more
                         than J ms later (default 0: strict event-time order)
  --seed S               seed of the jitter (default 1)
`

// flight is one flight of the replay: date is the departure time (no zone),
// delay the departure delay in minutes, distance in miles, origin and
// destination IATA airport codes.
type flight struct {
	Date        time.Time
	Delay       int64
	Distance    int64
	Origin      string
	Destination string
}

// flightJSON is the record written to Kafka and read from the file.
type flightJSON struct {
	Date        string `json:"date"`
	Delay       int64  `json:"delay"`
	Distance    int64  `json:"distance"`
	Origin      string `json:"origin"`
	Destination string `json:"destination"`
}

// isoLayout is the timestamp format of the produced records.
const isoLayout = "2006-01-02T15:04:05"

// dateLayouts are the accepted date formats of the input file.
var dateLayouts = []string{"2006/01/02 15:04", "2006/01/02 15:04:05", isoLayout, "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"}

// parseFlightDate parses a date of the input file.
func parseFlightDate(s string) (time.Time, error) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q is not of the form 2001/01/31 13:45 or 2001-01-31T13:45:00", s)
}

// readFlights reads flights from r, a JSON array of flight objects or one
// object per line. It returns an error naming the record (counted from 1)
// for malformed JSON, a bad date or an empty origin or destination.
func readFlights(r io.Reader) ([]flight, error) {
	br := bufio.NewReader(r)
	var raw []flightJSON
	first, err := peekNonSpace(br)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	if first == '[' {
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("reading the JSON array: %w", err)
		}
	} else {
		for {
			var f flightJSON
			err := dec.Decode(&f)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("record %d: %w", len(raw)+1, err)
			}
			raw = append(raw, f)
		}
	}
	out := make([]flight, len(raw))
	for i, f := range raw {
		t, err := parseFlightDate(f.Date)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i+1, err)
		}
		if f.Origin == "" || f.Destination == "" {
			return nil, fmt.Errorf("record %d: origin and destination must not be empty", i+1)
		}
		out[i] = flight{Date: t, Delay: f.Delay, Distance: f.Distance, Origin: f.Origin, Destination: f.Destination}
	}
	return out, nil
}

// peekNonSpace returns the first byte of br that is not white space,
// without consuming it; io.ErrUnexpectedEOF if there is none.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, fmt.Errorf("the file holds no flights: %w", io.ErrUnexpectedEOF)
			}
			return 0, err
		}
		if !bytes.ContainsAny(b, " \t\r\n") {
			return b[0], nil
		}
		if _, err := br.ReadByte(); err != nil {
			return 0, err
		}
	}
}

// replayOrder returns the flights in the order to produce them: sorted by
// date, then each moved back by a random amount of event time in
// [0, jitter] (drawn from rng) and sorted again by the shifted time. So a
// record is never produced after one whose date is later than its own by
// more than jitter. Ties keep the input order; jitter 0 or a nil rng gives
// the plain event-time order.
func replayOrder(fs []flight, jitter time.Duration, rng *rand.Rand) []flight {
	type keyed struct {
		at time.Time
		f  flight
	}
	ks := make([]keyed, len(fs))
	for i, f := range fs {
		ks[i] = keyed{at: f.Date, f: f}
		if jitter > 0 && rng != nil {
			ks[i].at = f.Date.Add(time.Duration(rng.Int64N(int64(jitter) + 1)))
		}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return a.at.Compare(b.at) })
	out := make([]flight, len(ks))
	for i, k := range ks {
		out[i] = k.f
	}
	return out
}

// maxDisorder returns how far the order fs lags event time: the largest
// amount by which a flight's date is earlier than that of a flight
// before it (0 for an order sorted by date).
func maxDisorder(fs []flight) time.Duration {
	var most time.Duration
	var high time.Time
	for i, f := range fs {
		if i == 0 || f.Date.After(high) {
			high = f.Date
			continue
		}
		if d := high.Sub(f.Date); d > most {
			most = d
		}
	}
	return most
}

// encodeFlight returns the JSON record of f, its date as an ISO 8601
// timestamp without a zone.
func encodeFlight(f flight) []byte {
	b, _ := json.Marshal(flightJSON{Date: f.Date.Format(isoLayout), Delay: f.Delay, Distance: f.Distance, Origin: f.Origin, Destination: f.Destination})
	return b
}

// pacer decides when the i-th record may be produced.
type pacer struct {
	start   time.Time
	rate    float64 // records per second, 0 for none
	speedup float64 // event seconds per wall second, 0 for none
	first   time.Time
	high    time.Time // the latest event time produced so far
}

// due returns the wall-clock time at which record i, of event time at, may
// be produced.
func (p *pacer) due(i int, at time.Time) time.Time {
	switch {
	case p.rate > 0:
		return p.start.Add(time.Duration(float64(i) / p.rate * float64(time.Second)))
	case p.speedup > 0:
		if i == 0 {
			p.first, p.high = at, at
		}
		if at.After(p.high) {
			p.high = at
		}
		return p.start.Add(time.Duration(float64(p.high.Sub(p.first)) / p.speedup))
	}
	return p.start
}

// replay is `weir replay`; it returns the process exit code.
func replay(args []string) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, replayUsage) }
	brokers := fs.String("brokers", "127.0.0.1:9092", "Kafka bootstrap brokers, comma separated")
	topic := fs.String("topic", "flights", "topic to produce to")
	file := fs.String("file", "", "flights file: JSON array, JSON lines, or .parquet (vega-datasets flights-3m.parquet)")
	rate := fs.Float64("rate", 0, "records per second (0: as fast as possible)")
	speedup := fs.Float64("speedup", 0, "event seconds per wall second (0: off)")
	jitterMs := fs.Int64("jitter-ms", 0, "bound of the out-of-order jitter in milliseconds of event time")
	seed := fs.Uint64("seed", 1, "seed of the jitter")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(os.Stderr, "weir replay: unexpected argument %q\n", fs.Arg(0))
		return 2
	case *file == "":
		fmt.Fprint(os.Stderr, "weir replay: --file is required\n\n"+replayUsage)
		return 2
	case *rate < 0 || *speedup < 0 || *jitterMs < 0:
		fmt.Fprint(os.Stderr, "weir replay: --rate, --speedup and --jitter-ms must not be negative\n")
		return 2
	case *rate > 0 && *speedup > 0:
		fmt.Fprint(os.Stderr, "weir replay: give --rate or --speedup, not both\n")
		return 2
	}
	var flights []flight
	var err error
	if strings.HasSuffix(*file, ".parquet") {
		flights, err = readFlightsParquet(*file)
	} else {
		var f *os.File
		if f, err = os.Open(*file); err != nil {
			fmt.Fprintf(os.Stderr, "weir replay: %v\n", err)
			return 1
		}
		flights, err = readFlights(f)
		f.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir replay: %s: %v\n", *file, err)
		return 1
	}
	order := replayOrder(flights, time.Duration(*jitterMs)*time.Millisecond, rand.New(rand.NewPCG(*seed, 0)))

	cl, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(*brokers, ",")...),
		kgo.DefaultProduceTopic(*topic),
		kgo.AllowAutoTopicCreation(),
		kgo.ProducerLinger(5*time.Millisecond),
	)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir replay: %v\n", err)
		return 1
	}
	defer cl.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
	)
	start := time.Now()
	p := pacer{start: start, rate: *rate, speedup: *speedup}
	for i, fl := range order {
		if wait := time.Until(p.due(i, fl.Date)); wait > 0 {
			time.Sleep(wait)
		}
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		cl.Produce(ctx, &kgo.Record{Value: encodeFlight(fl)}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	flushErr := cl.Flush(context.Background())
	mu.Lock()
	err = errors.Join(firstErr, flushErr)
	mu.Unlock()
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir replay: producing to %s: %v\n", *topic, err)
		return 1
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("replayed %d records to topic %s in %.2f s (%.0f records/s); event time %s .. %s, max disorder %s\n",
		len(order), *topic, secs, float64(len(order))/max(secs, 1e-9),
		minMaxDate(order, false).Format(isoLayout), minMaxDate(order, true).Format(isoLayout), maxDisorder(order))
	return 0
}

// minMaxDate returns the earliest (latest if last) date of fs; the zero
// time for none.
func minMaxDate(fs []flight, last bool) time.Time {
	var t time.Time
	for i, f := range fs {
		if i == 0 || (last && f.Date.After(t)) || (!last && f.Date.Before(t)) {
			t = f.Date
		}
	}
	return t
}

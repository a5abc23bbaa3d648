package nexmark

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/weirdb/weir/types"
)

// TableType is the kind of event a source reads.
type TableType int

// The three kinds of Nexmark events.
const (
	Person TableType = iota
	Auction
	Bid
)

// String returns the kind's name as nexmark.table.type spells it.
func (t TableType) String() string {
	switch t {
	case Person:
		return "Person"
	case Auction:
		return "Auction"
	case Bid:
		return "Bid"
	}
	return "TableType(" + strconv.Itoa(int(t)) + ")"
}

// ParseTableType reads nexmark.table.type (case-insensitive).
func ParseTableType(s string) (TableType, error) {
	switch strings.ToLower(s) {
	case "person":
		return Person, nil
	case "auction":
		return Auction, nil
	case "bid":
		return Bid, nil
	}
	return 0, fmt.Errorf("unknown Nexmark table type %q (want Person, Auction or Bid)", s)
}

// The standard generator's constants.
const (
	personProportion  = 1
	auctionProportion = 3
	bidProportion     = 46
	proportionDenom   = personProportion + auctionProportion + bidProportion

	firstPersonID   = 1000
	firstAuctionID  = 1000
	firstCategoryID = 10
	numCategories   = 5

	activePeople      = 1000
	inFlightAuctions  = 100
	personIDLead      = 10
	auctionIDLead     = 10
	hotSellerRatio    = 4
	hotAuctionRatio   = 2
	hotBidderRatio    = 4
	hotChannelRatio   = 2
	hotRound          = 100 // hot ids are the last id rounded down to this
	avgPersonBytes    = 200
	avgAuctionBytes   = 500
	avgBidBytes       = 100
	minStringLength   = 3
	numChannels       = 10_000
	extraPoolBytes    = 1 << 20
	eventsFor100Aucts = inFlightAuctions * proportionDenom / auctionProportion
)

// DefaultEventRate is the event-time rate of the standard generator:
// 10,000 events per second, one every 100 µs.
const DefaultEventRate = 10_000

// Columns returns the columns of a source of kind t, with RisingWave's
// names and types.
func Columns(t TableType) types.Schema {
	i8, s, ts := types.TInt8, types.TVarchar, types.TTimestamp
	c := func(name string, t types.T) types.Column { return types.Column{Name: name, T: t} }
	switch t {
	case Person:
		return types.Schema{c("id", i8), c("name", s), c("email_address", s), c("credit_card", s),
			c("city", s), c("state", s), c("date_time", ts), c("extra", s)}
	case Auction:
		return types.Schema{c("id", i8), c("item_name", s), c("description", s), c("initial_bid", i8),
			c("reserve", i8), c("date_time", ts), c("expires", ts), c("seller", i8), c("category", i8), c("extra", s)}
	default:
		return types.Schema{c("auction", i8), c("bidder", i8), c("price", i8), c("channel", s),
			c("url", s), c("date_time", ts), c("extra", s)}
	}
}

// EventNumber returns the global event number of the k-th event (from 0)
// of kind t.
func EventNumber(t TableType, k int64) int64 {
	switch t {
	case Person:
		return k/personProportion*proportionDenom + k%personProportion
	case Auction:
		return k/auctionProportion*proportionDenom + personProportion + k%auctionProportion
	default:
		return k/bidProportion*proportionDenom + personProportion + auctionProportion + k%bidProportion
	}
}

// KindOf returns the kind of event n.
func KindOf(n int64) TableType {
	switch rem := n % proportionDenom; {
	case rem < personProportion:
		return Person
	case rem < personProportion+auctionProportion:
		return Auction
	}
	return Bid
}

// CountBefore returns how many events of kind t have a global event
// number below n: the number of rows a source of kind t reads when
// nexmark.event.num is n.
func CountBefore(t TableType, n int64) int64 {
	if n <= 0 {
		return 0
	}
	full, rem := n/proportionDenom, n%proportionDenom
	switch t {
	case Person:
		return full*personProportion + min(rem, personProportion)
	case Auction:
		return full*auctionProportion + min(max(rem-personProportion, 0), auctionProportion)
	default:
		return full*bidProportion + max(rem-personProportion-auctionProportion, 0)
	}
}

// Clock maps event numbers to event times.
type Clock struct {
	// BaseMillis is the event time of event 0, in milliseconds since
	// 1970-01-01 (as a timestamp without time zone).
	BaseMillis int64
	// Rate is the number of events per second of event time (0 means
	// DefaultEventRate).
	Rate int64
}

// Millis returns the event time of event n in milliseconds since
// 1970-01-01: the base plus n inter-event delays, rounded to the
// millisecond, as the standard generator computes it.
func (c Clock) Millis(n int64) int64 {
	rate := c.Rate
	if rate <= 0 {
		rate = DefaultEventRate
	}
	delayUs := 1e6 / float64(rate)
	return c.BaseMillis + int64(math.Round(float64(n)*delayUs/1000))
}

// lastPersonID is the base-0 id of the last person created at or before
// event n.
func lastPersonID(n int64) int64 {
	epoch, off := n/proportionDenom, n%proportionDenom
	return epoch*personProportion + min(off, personProportion-1)
}

// lastAuctionID is the base-0 id of the last auction created at or
// before event n.
func lastAuctionID(n int64) int64 {
	epoch, off := n/proportionDenom, n%proportionDenom
	switch {
	case off < personProportion:
		epoch--
		off = auctionProportion - 1
	case off >= personProportion+auctionProportion:
		off = auctionProportion - 1
	default:
		off -= personProportion
	}
	return epoch*auctionProportion + off
}

// tables are the fixed word lists and the channel table, built once.
type tables struct {
	channels    []string // channel-i
	channelURLs []string
	hotURLs     [4]string
	extra       string // extraPoolBytes random letters that extra fields are sliced from
}

var (
	firstNames = []string{"peter", "paul", "luke", "john", "saul", "vicky", "kate", "julie", "sarah", "deiter", "walter"}
	lastNames  = []string{"shultz", "abrams", "spencer", "white", "bartels", "walton", "smith", "jones", "noris"}
	usStates   = []string{"az", "ca", "id", "or", "wa", "wy"}
	usCities   = []string{"phoenix", "los angeles", "san francisco", "boise", "portland", "bend", "redmond", "seattle", "kent", "cheyenne"}
	hotChannel = [4]string{"Google", "Facebook", "Baidu", "Apple"}

	tablesOnce sync.Once
	tbl        *tables
)

// seedStream is the second PCG word: every generator derives its values
// from the event number and this constant alone.
const seedStream = 0x6e65786d61726b // "nexmark"

func getTables() *tables {
	tablesOnce.Do(func() {
		t := &tables{channels: make([]string, numChannels), channelURLs: make([]string, numChannels)}
		pcg := rand.NewPCG(0, seedStream)
		r := rand.New(pcg)
		var b []byte
		for i := range numChannels {
			pcg.Seed(uint64(i), seedStream^1)
			url := baseURL(r)
			if r.IntN(10) > 0 {
				url += "&channel_id=" + strconv.FormatInt(abs64(int64(int32(reverseBits32(uint32(i))))), 10)
			}
			t.channels[i] = "channel-" + strconv.Itoa(i)
			t.channelURLs[i] = url
		}
		for i := range t.hotURLs {
			pcg.Seed(uint64(i), seedStream^2)
			t.hotURLs[i] = baseURL(r)
		}
		pcg.Seed(0, seedStream^3)
		b = make([]byte, extraPoolBytes)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		t.extra = string(b)
		tbl = t
	})
	return tbl
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func reverseBits32(v uint32) uint32 {
	var r uint32
	for range 32 {
		r = r<<1 | v&1
		v >>= 1
	}
	return r
}

// baseURL is a bid url as the standard generator builds it.
func baseURL(r *rand.Rand) string {
	return "https://www.nexmark.com/" + nextString(r, 5, '_') + "/" + nextString(r, 5, '_') + "/" +
		nextString(r, 5, '_') + "/item.htm?query=1"
}

// nextString is a string of 3 to max-1 letters, one in 13 of them
// replaced by special, with surrounding specials trimmed.
func nextString(r *rand.Rand, max int, special byte) string {
	n := minStringLength + r.IntN(max-minStringLength)
	var buf [128]byte
	b := buf[:0]
	if n > len(buf) {
		b = make([]byte, 0, n)
	}
	for range n {
		if r.IntN(13) == 0 {
			b = append(b, special)
		} else {
			b = append(b, byte('a'+r.IntN(26)))
		}
	}
	return strings.Trim(string(b), string(special))
}

// nextExtra pads an event of currentSize bytes to about avgSize: a length
// uniform in [0.8, 1.2) of the missing bytes, sliced from the pool.
func nextExtra(r *rand.Rand, t *tables, currentSize, avgSize int) string {
	if currentSize > avgSize {
		return ""
	}
	want := avgSize - currentSize
	delta := (want + 2) / 5
	size := want - delta
	if delta > 0 {
		size += r.IntN(2 * delta)
	}
	at := r.IntN(len(t.extra) - size)
	return t.extra[at : at+size]
}

// nextPrice is a log-uniform price in cents from 100 to 100,000,000.
func nextPrice(r *rand.Rand) int64 {
	return int64(math.Round(math.Pow(10, r.Float64()*6) * 100))
}

// nextPersonID is a random base-0 person id among the active people at
// event n, or up to personIDLead beyond the last.
func nextPersonID(r *rand.Rand, n int64) int64 {
	people := lastPersonID(n) + 1
	active := min(people, activePeople)
	return people - active + r.Int64N(active+personIDLead)
}

// nextAuctionID is a random base-0 auction id among the last
// inFlightAuctions at event n, or up to auctionIDLead beyond the last.
func nextAuctionID(r *rand.Rand, n int64) int64 {
	maxA := lastAuctionID(n)
	minA := max(maxA-inFlightAuctions, 0)
	return minA + r.Int64N(maxA-minA+1+auctionIDLead)
}

// PersonEvent is a new person.
type PersonEvent struct {
	ID                                          int64
	Name, EmailAddress, CreditCard, City, State string
	DateTime                                    int64 // ms since 1970-01-01
	Extra                                       string
}

// AuctionEvent is a new auction.
type AuctionEvent struct {
	ID                    int64
	ItemName, Description string
	InitialBid, Reserve   int64
	DateTime, Expires     int64 // ms since 1970-01-01
	Seller, Category      int64
	Extra                 string
}

// BidEvent is a bid on an auction.
type BidEvent struct {
	Auction, Bidder, Price int64
	Channel, URL           string
	DateTime               int64 // ms since 1970-01-01
	Extra                  string
}

// Generator builds events from their numbers. It is not safe for
// concurrent use (it reuses one random generator); a Generator per
// goroutine costs little, the tables are shared.
type Generator struct {
	clock Clock
	pcg   *rand.PCG
	r     *rand.Rand
	t     *tables
}

// NewGenerator returns a generator whose event times follow clock.
func NewGenerator(clock Clock) *Generator {
	pcg := rand.NewPCG(0, seedStream)
	return &Generator{clock: clock, pcg: pcg, r: rand.New(pcg), t: getTables()}
}

// seed makes the random values those of event n.
func (g *Generator) seed(n int64) { g.pcg.Seed(uint64(n), seedStream) }

// Person returns event n, which must be a person.
func (g *Generator) Person(n int64) PersonEvent {
	g.seed(n)
	r := g.r
	p := PersonEvent{ID: lastPersonID(n) + firstPersonID, DateTime: g.clock.Millis(n)}
	p.Name = firstNames[r.IntN(len(firstNames))] + " " + lastNames[r.IntN(len(lastNames))]
	p.EmailAddress = nextString(r, 7, ' ') + "@" + nextString(r, 5, ' ') + ".com"
	var cc [19]byte
	for i := range 4 {
		v := r.IntN(10000)
		o := i * 5
		cc[o], cc[o+1], cc[o+2], cc[o+3] = byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10)
		if i < 3 {
			cc[o+4] = ' '
		}
	}
	p.CreditCard = string(cc[:])
	p.City = usCities[r.IntN(len(usCities))]
	p.State = usStates[r.IntN(len(usStates))]
	size := 8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State)
	p.Extra = nextExtra(r, g.t, size, avgPersonBytes)
	return p
}

// Auction returns event n, which must be an auction.
func (g *Generator) Auction(n int64) AuctionEvent {
	g.seed(n)
	r := g.r
	a := AuctionEvent{ID: lastAuctionID(n) + firstAuctionID, DateTime: g.clock.Millis(n)}
	a.ItemName = nextString(r, 20, ' ')
	a.Description = nextString(r, 100, ' ')
	a.InitialBid = nextPrice(r)
	a.Reserve = a.InitialBid + nextPrice(r)
	horizon := g.clock.Millis(n+eventsFor100Aucts) - a.DateTime
	a.Expires = a.DateTime + 1 + r.Int64N(max(horizon*2, 1))
	if r.IntN(hotSellerRatio) > 0 {
		a.Seller = lastPersonID(n) / hotRound * hotRound
	} else {
		a.Seller = nextPersonID(r, n)
	}
	a.Seller += firstPersonID
	a.Category = firstCategoryID + int64(r.IntN(numCategories))
	a.Extra = nextExtra(r, g.t, 8+len(a.ItemName)+len(a.Description)+40, avgAuctionBytes)
	return a
}

// Bid returns event n, which must be a bid.
func (g *Generator) Bid(n int64) BidEvent {
	g.seed(n)
	r := g.r
	b := BidEvent{DateTime: g.clock.Millis(n)}
	if r.IntN(hotAuctionRatio) > 0 {
		b.Auction = lastAuctionID(n) / hotRound * hotRound
	} else {
		b.Auction = nextAuctionID(r, n)
	}
	b.Auction += firstAuctionID
	if r.IntN(hotBidderRatio) > 0 {
		b.Bidder = lastPersonID(n)/hotRound*hotRound + 1
	} else {
		b.Bidder = nextPersonID(r, n)
	}
	b.Bidder += firstPersonID
	b.Price = nextPrice(r)
	if r.IntN(hotChannelRatio) > 0 {
		i := r.IntN(len(hotChannel))
		b.Channel, b.URL = hotChannel[i], g.t.hotURLs[i]
	} else {
		i := r.IntN(numChannels)
		b.Channel, b.URL = g.t.channels[i], g.t.channelURLs[i]
	}
	b.Extra = nextExtra(r, g.t, 32, avgBidBytes)
	return b
}

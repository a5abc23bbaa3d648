package wire

import (
	"bufio"
	"bytes"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestFrameReaderResumes interrupts reads with a deadline in the middle
// of a header and in the middle of a large body: each later read goes on
// where the last stopped, and the frames come out whole and in order.
func TestFrameReaderResumes(t *testing.T) {
	client, server := tcpPair(t)
	defer client.Close()
	defer server.Close()
	r := frameReader{br: bufio.NewReaderSize(server, 64), max: 1 << 20}

	big := bytes.Repeat([]byte("0123456789"), 20000) // 200,000 bytes: grows past the first chunk
	stream := encodeFrontend(&pgproto3.CopyData{Data: big}, &pgproto3.Sync{}, &pgproto3.Query{String: "select 1"})
	cuts := []int{3, 1000, 100000, len(stream) - 7}

	readSoon := func() (frame, error) {
		server.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		defer server.SetReadDeadline(time.Time{})
		return r.read()
	}
	var got []frame
	prev := 0
	for _, cut := range append(cuts, len(stream)) {
		if _, err := client.Write(stream[prev:cut]); err != nil {
			t.Fatal(err)
		}
		prev = cut
		for {
			f, err := readSoon()
			if isDeadline(err) {
				break
			}
			if err != nil || f.err != nil {
				t.Fatalf("after %d bytes: %v %v", cut, err, f.err)
			}
			got = append(got, f)
		}
	}
	if len(got) != 3 {
		t.Fatalf("got %d frames, want 3", len(got))
	}
	var cd pgproto3.CopyData
	if got[0].typ != 'd' || cd.Decode(got[0].body) != nil || !bytes.Equal(cd.Data, big) {
		t.Errorf("first frame: type %c, %d bytes", got[0].typ, len(got[0].body))
	}
	if got[0].then != 0 && got[0].then != 'S' {
		t.Errorf("first frame's next type %c", got[0].then)
	}
	if got[1].typ != 'S' || got[2].typ != 'Q' || string(got[2].body) != "select 1\x00" {
		t.Errorf("then %c and %c %q", got[1].typ, got[2].typ, got[2].body)
	}
}

// TestFrameReaderLimits checks the frames that end the stream: a length
// word below 4 and a message over the limit, before its body is read.
func TestFrameReaderLimits(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{[]byte{'Q', 0, 0, 0, 3}, "invalid message length"},
		{[]byte{'Q', 0, 0, 4, 5}, "message of 1025 bytes exceeds the limit of 1024 bytes"},
	} {
		r := frameReader{br: bufio.NewReader(bytes.NewReader(tc.in)), max: 1024}
		f, err := r.read()
		if err != nil || f.err == nil || f.err.Error() != tc.want {
			t.Errorf("%v: got %v, frame error %v; want %q", tc.in, err, f.err, tc.want)
		}
	}
}

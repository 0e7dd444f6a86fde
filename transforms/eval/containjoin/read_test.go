package containjoin

import (
	"errors"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

func TestReadDocs(t *testing.T) {
	s, err := signature.New(signature.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	words := "one two three four five six seven eight"
	in := `{"id":"a","text":"` + words + `"}` + "\n" +
		`{"id":"b"}` + "\n" +
		`{"id":"c","text":"ONE Two three four five six"}` + "\n"
	opt := record.Options{Format: record.JSONL}
	var rejects []record.Reject
	docs, err := ReadDocs(strings.NewReader(in), "in.jsonl", opt, normalize.Form{}, s, func(r record.Reject) error {
		rejects = append(rejects, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].ID != "a" || docs[1].ID != "c" || len(rejects) != 1 {
		t.Fatalf("got docs %v and %d rejects; want a and c, and 1 reject", docs, len(rejects))
	}
	// Word 5-grams: 4 of "a", 2 of "c" (normalized to lower case), both
	// inside "a".
	if len(docs[0].Set) != 4 || len(docs[1].Set) != 2 {
		t.Fatalf("set sizes %d and %d; want 4 and 2", len(docs[0].Set), len(docs[1].Set))
	}
	pairs, err := Join(docs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 {
		t.Errorf("Join at 1: %d pairs; want c inside a", len(pairs))
	}
	stop := errors.New("stop")
	if _, err := ReadDocs(strings.NewReader(in), "in.jsonl", opt, normalize.Form{}, s, func(record.Reject) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("reject's error: got %v", err)
	}
}

package bank

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
)

// tagsPage is a page of n tags named after page, whose next link is next
// ("" for null).
func tagsPage(page, n int, next string) string {
	data := ""
	for i := range n {
		if i > 0 {
			data += ","
		}
		data += fmt.Sprintf(`{"type":"tags","id":"p%d-%d"}`, page, i)
	}
	link := "null"
	if next != "" {
		link = strconv.Quote(next)
	}
	return `{"data":[` + data + `],"links":{"prev":null,"next":` + link + `}}`
}

// tagPages fetches one page of tags by URL.
func tagPages(c *Client) PageFunc[Tag] {
	return func(ctx context.Context, pageURL string) (Page[Tag], error) {
		var p Page[Tag]
		err := c.do(ctx, request{method: http.MethodGet, url: pageURL}, func(_ int, body []byte) error {
			var err error
			p, err = decodePage(body, "tag", parseTag)
			return err
		})
		return p, err
	}
}

// A next link back to any page already fetched (here from the third page
// to the second, written with the query in another order and escaping)
// stops the listing with ErrPageLoop after the three requests.
func TestPagesStopAtALinkBackToAnEarlierPage(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page[after]") {
		case "":
			_, _ = w.Write([]byte(tagsPage(1, 2, s.base()+"/tags?page%5Bsize%5D=100&page%5Bafter%5D=b")))
		case "b":
			_, _ = w.Write([]byte(tagsPage(2, 2, s.base()+"/tags?page%5Bsize%5D=100&page%5Bafter%5D=c")))
		default:
			_, _ = w.Write([]byte(tagsPage(3, 2, s.base()+"/tags?page[after]=b&page[size]=100")))
		}
	})
	c := newTestClient(s)
	tags, err := c.Tags(t.Context())
	if !errors.Is(err, ErrPageLoop) || tags != nil {
		t.Fatalf("Tags = %d tags, %v; want ErrPageLoop", len(tags), err)
	}
	if s.hits.Load() != 3 {
		t.Errorf("%d requests, want 3", s.hits.Load())
	}
	if Unavailable(err) {
		t.Error("a pagination loop counts as the bank being unavailable (it would be retried as such)")
	}
}

// The second page leading back to the first (as the first was asked for)
// is a loop too; the page naming the loop is not yielded.
func TestPagesStopAtALinkBackToTheFirstPage(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page[after]") == "" {
			_, _ = w.Write([]byte(tagsPage(1, 1, s.base()+"/tags?page%5Bafter%5D=b&page%5Bsize%5D=100")))
			return
		}
		_, _ = w.Write([]byte(tagsPage(2, 1, s.base()+"/tags?page%5Bsize%5D=100")))
	})
	c := newTestClient(s)
	var got []string
	var err error
	for p, perr := range Pages(t.Context(), c.endpoint("/tags", c.pageQuery()), tagPages(c)) {
		if perr != nil {
			err = perr
			break
		}
		for _, tag := range p.Data {
			got = append(got, tag.ID)
		}
	}
	if !errors.Is(err, ErrPageLoop) {
		t.Fatalf("err = %v, want ErrPageLoop", err)
	}
	if len(got) != 1 || got[0] != "p1-0" || s.hits.Load() != 2 {
		t.Errorf("yielded %v after %d requests; want the first page only, 2 requests", got, s.hits.Load())
	}
}

// A listing whose links never repeat but never end stops at the page
// limit: exactly that many requests, then ErrListingTooLong.
func TestPagesStopPastThePageLimit(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page[after]"))
		_, _ = w.Write([]byte(tagsPage(n, 1, s.base()+"/tags?page%5Bafter%5D="+strconv.Itoa(n+1))))
	})
	c := newTestClient(s)
	const limit = 7
	pagesSeen := 0
	var err error
	for _, perr := range pages(t.Context(), c.endpoint("/tags", nil), tagPages(c), limit, MaxListingResources) {
		if perr != nil {
			err = perr
			break
		}
		pagesSeen++
	}
	if !errors.Is(err, ErrListingTooLong) || Unavailable(err) {
		t.Fatalf("err = %v, want ErrListingTooLong", err)
	}
	if pagesSeen != limit || s.hits.Load() != limit {
		t.Errorf("%d pages yielded after %d requests, want %d of each", pagesSeen, s.hits.Load(), limit)
	}
}

// Pages that together hold more resources than the limit stop the listing
// at the page that crosses it, before it is yielded.
func TestPagesStopPastTheResourceLimit(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page[after]"))
		_, _ = w.Write([]byte(tagsPage(n, 3, s.base()+"/tags?page%5Bafter%5D="+strconv.Itoa(n+1))))
	})
	c := newTestClient(s)
	resources := 0
	var err error
	for p, perr := range pages(t.Context(), c.endpoint("/tags", nil), tagPages(c), 1000, 10) {
		if perr != nil {
			err = perr
			break
		}
		resources += len(p.Data)
	}
	if !errors.Is(err, ErrListingTooLong) {
		t.Fatalf("err = %v, want ErrListingTooLong", err)
	}
	if resources != 9 || s.hits.Load() != 4 {
		t.Errorf("%d resources yielded after %d requests, want 9 after 4", resources, s.hits.Load())
	}
}

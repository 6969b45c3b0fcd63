# SQLite's full-text search (FTS5), which the mirror's search index needs,
# is compiled into mattn/go-sqlite3 only with this build tag: every go
# build, run, vet and test below passes it.
TAGS := -tags sqlite_fts5

.PHONY: demo test lint bench fuzz build release

build:
	CGO_ENABLED=1 go build $(TAGS) -o bankmirror ./cmd/bankmirror

demo:
	go run $(TAGS) ./cmd/bankmirror demo

# The release into dist/: tarballs and Debian packages for amd64 and arm64,
# and SHA256SUMS (packaging/release.sh says what each holds).
release:
	@test -n "$(VERSION)" || { echo "make release needs the version: make release VERSION=1.2.3" >&2; exit 2; }
	packaging/release.sh "$(VERSION)"

test:
	go test $(TAGS) -race -count=1 -shuffle=on ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	go vet $(TAGS) ./...

# Whole-system benchmarks: each prints its figures beside a same-run
# baseline and the command that repeats it.
bench:
	go run $(TAGS) ./cmd/bankmirror bench sync
	go run $(TAGS) ./cmd/bankmirror bench receiver
	go run $(TAGS) ./cmd/bankmirror bench burst
	go run $(TAGS) ./cmd/bankmirror bench idle
	go run $(TAGS) ./cmd/bankmirror bench export
	go run $(TAGS) ./cmd/bankmirror bench bucket
	go run $(TAGS) ./cmd/bankmirror bench ui
	go test $(TAGS) -run '^$$' -bench . -benchtime 3000x ./internal/receiver
	go test $(TAGS) -run '^$$' -bench EventVisibility -benchtime 1x ./cmd/bankmirror

fuzz:
	go test $(TAGS) -run '^$$' -fuzz FuzzParseTransaction -fuzztime 30s ./internal/bank
	go test $(TAGS) -run '^$$' -fuzz FuzzParseWebhookEvent -fuzztime 30s ./internal/bank
	go test $(TAGS) -run '^$$' -fuzz FuzzVerifySignature -fuzztime 30s ./internal/receiver
	go test $(TAGS) -run '^$$' -fuzz FuzzHandler -fuzztime 30s ./internal/receiver
	go test $(TAGS) -run '^$$' -fuzz FuzzSignatureHeaders -fuzztime 30s ./internal/receiver

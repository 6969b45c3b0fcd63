.PHONY: demo test lint bench fuzz build release

build:
	CGO_ENABLED=1 go build -o bankmirror ./cmd/bankmirror

demo:
	go run ./cmd/bankmirror demo

# The release into dist/: tarballs and Debian packages for amd64 and arm64,
# and SHA256SUMS (packaging/release.sh says what each holds).
release:
	@test -n "$(VERSION)" || { echo "make release needs the version: make release VERSION=1.2.3" >&2; exit 2; }
	packaging/release.sh "$(VERSION)"

test:
	go test -race -count=1 -shuffle=on ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	go vet ./...

# Whole-system benchmarks: each prints its figures beside a same-run
# baseline and the command that repeats it.
bench:
	go run ./cmd/bankmirror bench sync
	go run ./cmd/bankmirror bench receiver
	go run ./cmd/bankmirror bench burst
	go run ./cmd/bankmirror bench idle
	go run ./cmd/bankmirror bench export
	go run ./cmd/bankmirror bench bucket
	go test -run '^$$' -bench . -benchtime 3000x ./internal/receiver
	go test -run '^$$' -bench EventVisibility -benchtime 1x ./cmd/bankmirror

fuzz:
	go test -run '^$$' -fuzz FuzzParseTransaction -fuzztime 30s ./internal/bank
	go test -run '^$$' -fuzz FuzzParseWebhookEvent -fuzztime 30s ./internal/bank
	go test -run '^$$' -fuzz FuzzVerifySignature -fuzztime 30s ./internal/receiver
	go test -run '^$$' -fuzz FuzzHandler -fuzztime 30s ./internal/receiver
	go test -run '^$$' -fuzz FuzzSignatureHeaders -fuzztime 30s ./internal/receiver

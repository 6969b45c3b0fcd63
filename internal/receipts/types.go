package receipts

import (
	"net/http"
	"strings"
)

// keptTypes are the media types a receipt is kept as, with the extension
// its file is named with: photographs and scans a browser shows as images
// (no SVG, which can carry scripts, nor formats the sniffer cannot tell),
// HEIC/HEIF (phone cameras) and PDF.
var keptTypes = map[string]string{
	"image/jpeg":      "jpg",
	"image/png":       "png",
	"image/gif":       "gif",
	"image/webp":      "webp",
	"image/heic":      "heic",
	"image/heif":      "heif",
	"application/pdf": "pdf",
}

// keptTypeList names keptTypes in errors.
const keptTypeList = "JPEG, PNG, GIF, WebP, HEIC, HEIF or PDF"

// contentType is the media type of a file by its first bytes (up to 512):
// http.DetectContentType's, which knows JPEG, PNG, GIF, WebP and PDF by
// their signatures, and HEIC/HEIF by the brand of their ISO BMFF "ftyp"
// box, which it does not know.
func contentType(head []byte) string {
	if len(head) >= 12 && string(head[4:8]) == "ftyp" {
		switch string(head[8:12]) {
		case "heic", "heix", "heim", "heis", "hevc", "hevx":
			return "image/heic"
		case "mif1", "msf1":
			return "image/heif"
		}
	}
	got, _, _ := strings.Cut(http.DetectContentType(head), ";") // "text/html; charset=utf-8"
	return got
}

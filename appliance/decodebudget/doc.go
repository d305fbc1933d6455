// Package decodebudget bounds the memory that decoding request bodies holds
// at once, across every request of the appliance (issue 20, scope 3). Each
// route also has its own limits (body size, rows, decompressed size, CSV
// line length): those bound one request; this budget bounds their sum, so
// that many uploads at once, each within its own limits, cannot together
// push the process out of memory.
//
// # Basics
//
// One Budget is built by the composition root (appliance/cmd/linkplan) and
// handed to web/api, which opens a Lease per request and releases it when
// the request ends. The building-layer uploads (POST /buildings/layers)
// are charged to a second Budget of their own, of the largest file cap
// (Ultra, 128 MiB), built by web/api: an upload at the Ultra cap fits it
// whole, and uploads, which hold their bodies while they wait for the
// heavy-work scheduler and parse, never take another route's share. The
// process may so hold up to 128 MiB more in upload bodies. Every decoder charges the lease for the memory it is
// about to hold before holding it:
//
//	what                                          charged                         by
//	a request body read into memory (JSON,        the buffer's capacity, as it    web/api readBody
//	the webhook, engine cases, text/csv)          grows (Content-Length first)
//	a multipart file part buffered (drive-test    the bytes read                  web/api (Lease.ReadAll, Lease.Reader)
//	csv_file, batch file)
//	a gzip stream (drive-test csv_file)           the inflater's state plus the   appliance/observations
//	                                              longest CSV record it may hold
//	a PNG logo (PUT /tenant/branding, the admin   width × height × 8 bytes,       appliance/branding
//	route)                                        before the pixels are decoded
//
// Bytes that only stream through a decoder (the inflated CSV, parsed and
// dropped record by record) are not charged: what a stream holds is
// bounded by its own caps, and those are what it charges.
//
// # States of a lease
//
//	state     event                               next      effect
//	open      Grow(n), budget has n left          open      held += n; the budget's use grows by n
//	open      Grow(n), budget has less than n     open      *ExhaustedError (503 + Retry-After); nothing charged
//	open      ReadAll of a body larger than the   open      *OverBudgetError (413: no retry could pass it);
//	          whole budget                                  nothing more charged
//	open      Release                             released  the budget's use shrinks by held; held = 0
//	released  Grow(n)                             released  charged as a fresh hold (a lease can be reused)
//
// A nil *Lease charges nothing and never refuses: the command-line tools
// (linkplan model, observations import) decode files without a budget.
//
// # Caveats
//
// Charges are what the decoders hold, not what the Go runtime has mapped:
// garbage from a finished request stays resident until the collector runs,
// and structures derived from a body (decoded JSON, parsed rows) are not
// charged separately. The default (DefaultLimit) leaves room for both under
// the appliance's resident-set goal; TestIssue20_ConcurrentGzipBombs in
// appliance/cmd/linkplan measures the peak (VmHWM) of the real binary.
package decodebudget

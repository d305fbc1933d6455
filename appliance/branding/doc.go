// Package branding keeps each tenant's white-label branding (SPEC §2.10,
// issue 10 item 6): display name, logo (PNG or SVG), primary colour,
// support contact and report footer. The console reads it (GET
// /tenant/branding) and the PDF reports carry it (web/api maps it onto
// report.Branding). It knows nothing of HTTP.
//
// # Basics
//
// A branding is stored whole per tenant (store bucket branding, key the
// tenant id); setting it replaces the previous one, and an empty field
// clears it. A tenant without one gets the neutral default.
//
//	who                     how                                              audit action
//	tenant key (not admin)  Set: its own tenant                              tenant.branding.set
//	admin key               SetFor: any existing tenant, with TOTP step-up   admin.branding.set (justification)
//	                        (checked by web/api) and a justification
//
// # Content checks
//
//   - display_name, support_contact, report_footer: one line of valid
//     UTF-8 without control or format characters, at most 100, 200 and
//     200 characters.
//   - primary_color: "#RRGGBB".
//   - logo: at most MaxLogoBytes (256 KiB) decoded. A PNG must carry the
//     PNG signature, be 1 to 2000 pixels a side (read before the pixels
//     are decoded) and decode completely. An SVG must pass CheckSVG: well
//     formed, root <svg>, no DOCTYPE/entities, only drawing elements (no
//     script, style, foreignObject, image, a, animations), no on*
//     attribute, href only to "#id", no javascript:/url(external)/
//     @import/expression( in any attribute. The media type is the one the
//     client names, and the content must match it.
//
// # Caveats
//
//   - The PDF renderer (go-pdf/fpdf) draws PNG images only: a report of a
//     tenant with an SVG logo shows the display name without the logo.
//   - The console should show the logo as an image (<img src="data:...">),
//     never inline it into the page, as defence in depth beside CheckSVG.
package branding

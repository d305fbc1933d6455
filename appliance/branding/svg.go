package branding

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// SVG limits.
const (
	maxSVGDepth    = 64
	maxSVGElements = 10000
)

// svgNS is the SVG namespace; elements in no namespace are read as SVG.
const svgNS = "http://www.w3.org/2000/svg"

// svgElements are the elements a logo may hold: shapes, text, gradients,
// clipping and reuse. Everything else (script, foreignObject, style,
// image, a, animate, set, iframe, ...) is refused.
var svgElements = map[string]bool{
	"svg": true, "g": true, "defs": true, "title": true, "desc": true, "path": true, "rect": true, "circle": true,
	"ellipse": true, "line": true, "polyline": true, "polygon": true, "text": true, "tspan": true,
	"linearGradient": true, "radialGradient": true, "stop": true, "clipPath": true, "mask": true, "use": true, "symbol": true,
	"metadata": true,
}

// CheckSVG accepts an SVG logo that cannot run or fetch anything: well
// formed XML whose root is svg, no DOCTYPE or entity declaration, no
// processing instruction but the XML declaration, only the elements of a
// drawing (no script, foreignObject, style, image, a or animation), no
// event-handler attribute (on...), references (href) only to fragments of
// the document itself ("#id"), and no attribute value holding
// "javascript:", a url() other than url(#id), "@import" or
// "expression(". The error says what was found.
func CheckSVG(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	depth, elements, root := 0, 0, false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("is not well-formed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.ProcInst:
			if t.Target != "xml" || root {
				return fmt.Errorf("must not hold the processing instruction <?%s?>", clip(t.Target))
			}
		case xml.Directive:
			return errors.New("must not hold a DOCTYPE or entity declaration")
		case xml.StartElement:
			elements++
			depth++
			if elements > maxSVGElements || depth > maxSVGDepth {
				return fmt.Errorf("must have at most %d elements nested at most %d deep", maxSVGElements, maxSVGDepth)
			}
			if t.Name.Space != "" && t.Name.Space != svgNS {
				return fmt.Errorf("must hold only SVG elements, found <%s> in namespace %q", clip(t.Name.Local), clip(t.Name.Space))
			}
			if !root {
				if t.Name.Local != "svg" {
					return fmt.Errorf("must have <svg> as its root element, found <%s>", clip(t.Name.Local))
				}
				root = true
			}
			if !svgElements[t.Name.Local] {
				return fmt.Errorf("must not hold <%s> (scripts, styles, images, links, foreign content and animations are refused)", clip(t.Name.Local))
			}
			for _, a := range t.Attr {
				if err := checkAttr(a); err != nil {
					return err
				}
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if !root && len(bytes.TrimSpace(t)) > 0 {
				return errors.New("must have <svg> as its root element")
			}
		}
	}
	if !root {
		return errors.New("must have <svg> as its root element")
	}
	return nil
}

func checkAttr(a xml.Attr) error {
	name := strings.ToLower(a.Name.Local)
	if strings.HasPrefix(name, "on") {
		return fmt.Errorf("must not hold the event-handler attribute %s", clip(a.Name.Local))
	}
	v := strings.ToLower(strings.Join(strings.Fields(a.Value), ""))
	if name == "href" && !strings.HasPrefix(v, "#") {
		return fmt.Errorf("may refer (href) only to its own elements (#id), found %q", clip(a.Value))
	}
	for _, bad := range []string{"javascript:", "vbscript:", "@import", "expression("} {
		if strings.Contains(v, bad) {
			return fmt.Errorf("must not hold %q in attribute %s", bad, clip(a.Name.Local))
		}
	}
	for rest := v; ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			break
		}
		rest = rest[i+4:]
		rest = strings.TrimLeft(rest, `'"`)
		if !strings.HasPrefix(rest, "#") {
			return fmt.Errorf("may use url() only for its own elements (url(#id)), in attribute %s", clip(a.Name.Local))
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

package buildings

import (
	"fmt"
	"strings"

	"linkplan/appliance"
)

// MinBuildingHeightM is the lowest building height kept, metres: a
// tagged height, or a storey count times the storey height (with the
// roof), below it (zero or negative included) is treated as unknown and
// the next height rule applies, counted in the layer's
// buildings_unusable_height_tags warning.
const MinBuildingHeightM = 2.0

// heightTally counts the height tags an import could not use.
type heightTally struct {
	unreadable, implausible int
	example                 string // the first unreadable value
}

func (t *heightTally) unread(v string) {
	if t.unreadable == 0 {
		t.example = v
		if len(t.example) > 40 {
			t.example = t.example[:40]
		}
	}
	t.unreadable++
}

func (t heightTally) warning() (appliance.Warning, bool) {
	if t.unreadable+t.implausible == 0 {
		return appliance.Warning{}, false
	}
	n := t.unreadable + t.implausible
	var parts []string
	if t.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable, such as %q", t.unreadable, t.example))
	}
	if t.implausible > 0 {
		parts = append(parts, fmt.Sprintf("%d below the %g m minimum, negative or beyond %g m", t.implausible, MinBuildingHeightM, MaxHeightM))
	}
	return appliance.Warning{Code: "buildings_unusable_height_tags", Message: fmt.Sprintf(
		"%d height, storey, roof or min_height %s could not be used (%s); %s ignored and the next height rule applied.",
		n, plural(n, "tag", "tags"), strings.Join(parts, "; "), plural(n, "it was", "they were"))}, true
}

// heights applies the height rules (see the package doc); a reason that
// is not "" refuses the feature.
func (c *collector) heights(b *appliance.Building, tags map[string]string) string {
	st := c.opts.StoreyHeightM
	tally := &c.im.heightTags
	if v := tagValue(tags, "height", "building:height", "HEIGHT", "Height", "building_h", "hgt", "HGT"); v != "" {
		h, ok := parseLength(v)
		switch {
		case !ok:
			tally.unread(v)
		case h > MaxHeightM:
			return fmt.Sprintf("has height %q, above the %g m any building reaches", v, MaxHeightM)
		case h < MinBuildingHeightM:
			tally.implausible++
		default:
			b.HeightM, b.HeightSource = h, appliance.HeightTagged
		}
	}
	if b.HeightSource == "" {
		if v := tagValue(tags, "building:levels", "levels", "LEVELS", "building_l", "b_levels"); v != "" {
			n, ok := parseNumber(v)
			h := n*st + c.roofHeight(tags)
			switch {
			case !ok:
				tally.unread(v)
			case n < 0 || h < MinBuildingHeightM || h > MaxHeightM:
				tally.implausible++
			default:
				b.HeightM, b.HeightSource = h, appliance.HeightLevels
			}
		}
	}
	if b.HeightSource == "" {
		b.HeightM, b.HeightSource = c.opts.DefaultHeightM, appliance.HeightDefault
	}
	what := ""
	if v := tagValue(tags, "min_height", "building:min_height", "MIN_HEIGHT"); v != "" {
		if h, ok := parseLength(v); !ok {
			tally.unread(v)
		} else if h < 0 {
			tally.implausible++
		} else {
			b.MinHeightM, what = h, fmt.Sprintf("min_height %q", v)
		}
	} else if v := tagValue(tags, "building:min_level"); v != "" {
		if n, ok := parseNumber(v); !ok {
			tally.unread(v)
		} else if n < 0 {
			tally.implausible++
		} else {
			b.MinHeightM, what = n*st, fmt.Sprintf("building:min_level %q (%g m)", v, n*st)
		}
	}
	if b.MinHeightM > 0 && b.MinHeightM >= b.HeightM {
		return fmt.Sprintf("has %s at or above its height of %g m (%s): its base would be at or above its roof", what, b.HeightM, b.HeightSource)
	}
	return ""
}

// roofHeight is the height of the roof above the top storey, metres, for
// a height from building:levels (Simple 3D Buildings: building:levels
// counts the storeys below the roof): roof:height, else roof:levels × the
// storey height, else 0.
func (c *collector) roofHeight(tags map[string]string) float64 {
	if v := tagValue(tags, "roof:height"); v != "" {
		if h, ok := parseLength(v); ok && h >= 0 && h <= MaxHeightM {
			return h
		}
		c.im.heightTags.unread(v)
	}
	if v := tagValue(tags, "roof:levels"); v != "" {
		if n, ok := parseNumber(v); ok && n >= 0 && n*c.opts.StoreyHeightM <= MaxHeightM {
			return n * c.opts.StoreyHeightM
		}
		c.im.heightTags.unread(v)
	}
	return 0
}

// parseLength reads an OpenStreetMap length: metres by default; "m",
// "metre(s)", "meter(s)" (any case), "ft", "feet" and "'" (feet) and
// "12'6\"" recognised, with or without a space before the unit.
func parseLength(v string) (float64, bool) {
	v = strings.TrimSpace(strings.SplitN(v, ";", 2)[0])
	if i := strings.Index(v, "'"); i > 0 {
		ft, ok := parseNumber(v[:i])
		if !ok {
			return 0, false
		}
		in := 0.0
		if rest := strings.Trim(strings.TrimSpace(v[i+1:]), "\""); rest != "" {
			if in, ok = parseNumber(rest); !ok {
				return 0, false
			}
		}
		return (ft*12 + in) * 0.0254, true
	}
	unit := 1.0
	low := strings.ToLower(v)
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"metres", 1}, {"meters", 1}, {"metre", 1}, {"meter", 1}, {"m", 1}, {"feet", 0.3048}, {"foot", 0.3048}, {"ft", 0.3048}} {
		if strings.HasSuffix(low, u.suffix) {
			unit, v = u.m, strings.TrimSpace(v[:len(v)-len(u.suffix)])
			break
		}
	}
	f, ok := parseNumber(v)
	return f * unit, ok
}

package api

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// Deprecated member names (issue 20: one name per concept across the API,
// height_m and frequency_mhz). A request type keeps an old name as a field
// tagged `deprecated:"NEW"` (or `deprecated:"NEW,div=D"` when the old
// name has another unit: new = old / D) beside the field of the new name,
// of the same type. decodeBytes moves every old value it decoded to the
// new field, so the rules of the route read one name, and gives the
// request one deprecated_field warning per old name (with how many times
// it was given) through its renamed holder; the handler adds them to its
// answer. An old and a new name given together must agree (else a 422
// names the old one). The OpenAPI document marks the old names
// "deprecated": true.

// renamed collects the deprecated_field warnings of a request body. A
// request type with a deprecated member name anywhere in it embeds it.
type renamed struct{ warnings []appliance.Warning }

func (r *renamed) setRenamed(w []appliance.Warning) { r.warnings = w }

// renames returns the deprecated_field warnings of the decoded request.
func (r *renamed) renames() []appliance.Warning { return r.warnings }

// renameHolder is a request type that embeds renamed.
type renameHolder interface{ setRenamed([]appliance.Warning) }

// indexPath matches the array indexes of a JSON path.
var indexPath = regexp.MustCompile(`\[\d+\]`)

// applyRenames moves the deprecated members of v (a pointer to a decoded
// request) to their new names and hands the warnings to v's renamed
// holder. A deprecated name given in a type without a holder is a bug of
// this package: it is an error (500), so that the tests find it.
func applyRenames(v any) error {
	type use struct {
		pattern, newName string
		div              float64
		n                int
	}
	var uses []*use
	ve := &appliance.ValidationError{}
	var walk func(x reflect.Value, path string)
	walk = func(x reflect.Value, path string) {
		switch x.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !x.IsNil() {
				walk(x.Elem(), path)
			}
		case reflect.Slice, reflect.Array:
			if !hasDeprecated(x.Type().Elem(), 0) {
				return
			}
			for i := 0; i < x.Len(); i++ {
				walk(x.Index(i), path+"["+strconv.Itoa(i)+"]")
			}
		case reflect.Struct:
			t := x.Type()
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if f.Anonymous && f.Tag.Get("json") == "" && !f.IsExported() {
					walk(x.Field(i), path) // an embedded unexported struct: encoding/json decodes its members
					continue
				}
				name, ok := jsonName(f)
				if !ok {
					continue
				}
				p := name
				switch {
				case f.Anonymous && f.Tag.Get("json") == "":
					p = path
				case path != "":
					p = path + "." + name
				}
				tag := f.Tag.Get("deprecated")
				if tag == "" {
					walk(x.Field(i), p)
					continue
				}
				old := x.Field(i)
				if old.IsNil() {
					continue
				}
				newName, div := parseDeprecated(tag)
				nf, ok := fieldByJSON(t, newName)
				if !ok || nf.Type != f.Type || f.Type.Kind() != reflect.Pointer {
					panic(fmt.Sprintf("api: deprecated field %s.%s names %q, which is not a field of the same pointer type", t.Name(), f.Name, newName))
				}
				val := old.Elem().Interface()
				if div != 1 {
					val = old.Elem().Float() / div
				}
				dst := x.FieldByIndex(nf.Index)
				if !dst.IsNil() {
					if !reflect.DeepEqual(dst.Elem().Interface(), val) {
						ve.Add(p, "is the deprecated name of %s, also given with another value: send %s only", newName, newName)
					}
				} else {
					nv := reflect.New(f.Type.Elem())
					nv.Elem().Set(reflect.ValueOf(val).Convert(f.Type.Elem()))
					dst.Set(nv)
				}
				old.Set(reflect.Zero(f.Type))
				pattern := indexPath.ReplaceAllString(p, "[]")
				i := slices.IndexFunc(uses, func(u *use) bool { return u.pattern == pattern })
				if i < 0 {
					uses = append(uses, &use{pattern: pattern, newName: newName, div: div})
					i = len(uses) - 1
				}
				uses[i].n++
			}
		}
	}
	walk(reflect.ValueOf(v), "")
	if err := ve.Err(); err != nil {
		return err
	}
	if len(uses) == 0 {
		return nil
	}
	h, ok := v.(renameHolder)
	if !ok {
		return fmt.Errorf("api: %T has deprecated member names but no renamed holder", v)
	}
	ws := make([]appliance.Warning, len(uses))
	for i, u := range uses {
		newPath := u.newName // beside the old name: rows[].receiver.height_m
		if dot := strings.LastIndexByte(u.pattern, '.'); dot >= 0 {
			newPath = u.pattern[:dot+1] + u.newName
		}
		times := ""
		if u.n > 1 {
			times = fmt.Sprintf(" (given %d times)", u.n)
		}
		unit := ""
		if u.div != 1 {
			unit = fmt.Sprintf(" (its value / %g)", u.div)
		}
		ws[i] = appliance.Warning{Code: appliance.WarnDeprecatedField, Message: fmt.Sprintf(
			"%s is a deprecated name%s, read as %s%s: send %s, the old name will be removed", u.pattern, times, newPath, unit, newPath)}
	}
	h.setRenamed(ws)
	return nil
}

// parseDeprecated splits a deprecated tag into the new name and the
// divisor from the old unit to the new one (1 when none).
func parseDeprecated(tag string) (string, float64) {
	name, opt, _ := strings.Cut(tag, ",")
	div := 1.0
	if s, ok := strings.CutPrefix(opt, "div="); ok {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x == 0 {
			panic("api: deprecated tag " + tag + ": bad divisor")
		}
		div = x
	}
	return name, div
}

// fieldByJSON returns the field of struct type t whose JSON name is name.
func fieldByJSON(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if n, ok := jsonName(t.Field(i)); ok && n == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// hasDeprecated reports whether a value of type t can hold a field tagged
// deprecated (so that a long array of numbers is not walked).
func hasDeprecated(t reflect.Type, depth int) bool {
	if depth > 16 {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return hasDeprecated(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Tag.Get("deprecated") != "" || (f.IsExported() || f.Anonymous) && hasDeprecated(f.Type, depth+1) {
				return true
			}
		}
	}
	return false
}

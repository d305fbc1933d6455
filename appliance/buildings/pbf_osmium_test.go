//go:build systemtools

package buildings

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"

	"linkplan/appliance/tooltest"
)

// randomOSM writes random OpenStreetMap XML: nodes spread over the globe
// with ids jumping by up to 2^40 (and some negative, as unsaved edits
// have), tags with accents, quotes and emoji, ways referencing present
// and absent nodes, relations with members of every type and roles.
func randomOSM(rng *rand.Rand, nodes, ways, rels int) []byte {
	esc := func(s string) string {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	words := []string{"building", "yes", "house", "name", "Prédio Câmpus Ç", "\"quoted\" & <tag>", "🏢", "building:levels", "3", "", "outer", "inner", "a;b", "ÿ"}
	word := func() string { return words[rng.Intn(len(words))] }
	tags := func(b *bytes.Buffer) {
		seen := map[string]bool{}
		for range rng.Intn(5) {
			k := word() + fmt.Sprint(rng.Intn(3))
			if seen[k] {
				continue
			}
			seen[k] = true
			fmt.Fprintf(b, `<tag k="%s" v="%s"/>`, esc(k), esc(word()))
		}
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<osm version="0.6" generator="linkplan test">` + "\n")
	ids := make([]int64, nodes)
	id := -int64(rng.Intn(1000)) - 1000
	for i := range ids {
		id += 1 + rng.Int63n(int64(1)<<uint(rng.Intn(41)))
		ids[i] = id
		fmt.Fprintf(&b, `<node id="%d" version="1" lat="%.7f" lon="%.7f">`, id, rng.Float64()*180-90, rng.Float64()*360-180)
		if rng.Intn(4) == 0 {
			tags(&b)
		}
		b.WriteString("</node>\n")
	}
	wid := int64(rng.Intn(100))
	for range ways {
		wid += 1 + rng.Int63n(1<<20)
		fmt.Fprintf(&b, `<way id="%d" version="1">`, wid)
		for range rng.Intn(60) {
			ref := ids[rng.Intn(len(ids))]
			if rng.Intn(20) == 0 {
				ref = rng.Int63n(1 << 50) // absent
			}
			fmt.Fprintf(&b, `<nd ref="%d"/>`, ref)
		}
		tags(&b)
		b.WriteString("</way>\n")
	}
	rid := int64(rng.Intn(100))
	types := []string{"node", "way", "relation"}
	for range rels {
		rid += 1 + rng.Int63n(1<<16)
		fmt.Fprintf(&b, `<relation id="%d" version="1">`, rid)
		for range rng.Intn(30) {
			fmt.Fprintf(&b, `<member type="%s" ref="%d" role="%s"/>`, types[rng.Intn(3)], rng.Int63n(1<<45)-(1<<20), esc(word()))
		}
		tags(&b)
		b.WriteString("</relation>\n")
	}
	b.WriteString("</osm>\n")
	return b.Bytes()
}

// TestPBFDecoderRandomOsmium: random extracts (printed seed) written as
// PBF by osmium-tool in each of its encodings (dense or plain nodes,
// zlib or none, with or without metadata, with locations on ways; more
// than one block each) decode to the elements osmxml reads from the XML,
// and, where osmpbf reads the file (dense nodes), to osmpbf's.
func TestPBFDecoderRandomOsmium(t *testing.T) {
	osmium := tooltest.Need(t, "osmium", "osmium-tool")
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	src := filepath.Join(dir, "random.osm")
	if err := os.WriteFile(src, randomOSM(rng, 20000, 4000, 400), 0o644); err != nil {
		t.Fatal(err)
	}
	xmlData, _ := os.ReadFile(src)
	ref := theirs(t, osmxml.New(context.Background(), bytes.NewReader(xmlData)))
	variants := []struct {
		name   string
		args   []string
		osmpbf bool
		locs   bool
	}{
		{"dense zlib", []string{"cat", "-f", "pbf"}, true, false},
		{"dense raw no metadata", []string{"cat", "-f", "pbf,pbf_compression=none,add_metadata=false"}, true, false},
		{"plain nodes zlib", []string{"cat", "-f", "pbf,pbf_dense_nodes=false"}, false, false},
		{"locations on ways", []string{"add-locations-to-ways", "--ignore-missing-nodes", "-n", "-f", "pbf"}, true, true},
	}
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("v%d.osm.pbf", i))
			args := append(append([]string{}, v.args...), src, "-o", out)
			if b, err := exec.Command(osmium, args...).CombinedOutput(); err != nil {
				t.Fatalf("osmium %v: %v\n%s", args, err, b)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got := ours(t, data)
			want := ref
			if v.locs {
				want = withWayLocations(ref, osmNode{lat: 214.7483647, lon: 214.7483647})
			}
			if err := sameElems(got, want, true, v.locs); err != nil {
				t.Errorf("against the XML: %v", err)
			}
			if v.osmpbf {
				if err := sameElems(got, theirs(t, osmpbf.New(context.Background(), bytes.NewReader(data), 1)), true, v.locs); err != nil {
					t.Errorf("against osmpbf: %v", err)
				}
			}
			t.Logf("%s: %d bytes, %d nodes, %d ways (%d refs), %d relations (%d members); osmpbf compared: %v",
				v.name, len(data), len(got.nodes), len(got.ways), countRefs(got.ways), len(got.rels), countMembers(got.rels), v.osmpbf)
		})
	}
}

//go:build systemtools

package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// refDir holds the committed reference tables (copies of
// shared/validation/itu_p530 with their licence, see its README).
const refDir = "../../../engines/itur/refcheck/testdata"

var summaryRE = regexp.MustCompile(`(?m)^cases=(\d+) failed=(\d+) skipped=(\d+) max_abs_err=\S+$`)

// TestITUCheckCLI runs `linkplan itu check` on every committed reference
// table (exit 0; every row passes, except the rows outside the embedded
// Brazil maps, which are skipped and counted: all of the ITU-R P.837-7 and
// P.1510-1 examples), on corrupted copies (a changed value fails its row,
// exit 1, the row printed above the summary; rows shuffled and removed give
// the same verdicts; a changed value on a row outside the maps is still
// only skipped), with --verbose (each skipped row and its reason), and on
// malformed files (exit 2).
func TestITUCheckCLI(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	files := []struct {
		path           string
		cases, skipped string
	}{
		{"itu_p530/p837_rainfall_rate_brazil.csv", "11", "0"},
		{"itu_p530/grid_lookup_brazil.csv", "11", "0"},
		{"itu_p530/p838_specific_attenuation.csv", "18", "0"},
		{"itu_p530/p530_links_brazil.csv", "14", "0"},
		{"itu_p530/itu-validation/ITURP837-7_rainfall_rate.csv", "40", "40"},
		{"itu_p530/itu-validation/ITURP837-7_rainfall_rate_R001.csv", "8", "8"},
		{"itu_p530/itu-validation/ITURP837-7_rainfall_rate_probability.csv", "8", "8"},
		{"itu_p530/itu-validation/ITURP838-3_rain_specific_attenuation.csv", "64", "0"},
		{"itu_p530/itu-validation/ITURP1510-1_temperature.csv", "64", "64"},
	}
	for _, f := range files {
		t.Run("committed/"+filepath.Base(f.path), func(t *testing.T) {
			out, errOut, code := runCLI(t, bin, "itu", "check", "--cases", filepath.Join(refDir, f.path))
			m := summaryRE.FindStringSubmatch(out)
			if code != 0 || m == nil || m[1] != f.cases || m[2] != "0" || m[3] != f.skipped || strings.Count(out, "\n") != 1 {
				t.Errorf("exit %d, want 0 with cases=%s failed=0 skipped=%s alone\nstdout %s\nstderr %s", code, f.cases, f.skipped, out, errOut)
			}
		})
	}
	t.Run("verbose names each skipped row", func(t *testing.T) {
		out, errOut, code := runCLI(t, bin, "itu", "check", "--verbose", "--cases", filepath.Join(refDir, "itu_p530/itu-validation/ITURP837-7_rainfall_rate_probability.csv"))
		if code != 0 || strings.Count(out, "SKIP line ") != 8 || !strings.Contains(out, "cases=8 failed=0 skipped=8 ") ||
			!strings.Contains(out, "SKIP line 4 (lat=22.9 lon=-43.23 p=1.41773353): point (22.9, -43.23) is outside the embedded ITU-R maps") {
			t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		if i, j := strings.LastIndex(out, "SKIP"), strings.Index(out, "cases="); i > j {
			t.Errorf("the skipped rows must come above the summary:\n%s", out)
		}
	})

	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(rel string) []string {
		b, err := os.ReadFile(filepath.Join(refDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	}
	links := read("itu_p530/p530_links_brazil.csv")
	rates := read("itu_p530/itu-validation/ITURP837-7_rainfall_rate.csv")
	// An ITU-R-format P.837 table at Brazilian points (inside the maps),
	// with the ITU-Rpy figures of p837_rainfall_rate_brazil.csv (Rio de
	// Janeiro, Manaus, Porto Alegre), and one ITU-R row outside.
	brRates := []string{"lat,lon,p,Rp", " (\xb0N),(\xb0E),(%),(mm/hr)",
		"-22.9129,-43.2003,0.01,66.50591642", "-3.11866,-60.0212,0.1,34.2316553", "-30.0318,-51.2065,1,3.959037364", rates[2]}

	// The corruptions: each changes one reference value of one row.
	corrupt := []struct {
		name, file, content, failLine string
	}{
		{
			// BR05 Brasília: A_rain at 0.01 % 21.96852048 → 21.99 dB.
			"p530 rain attenuation", "p530_links_brazil.csv",
			strings.Replace(strings.Join(links, "\n"), "21.96852048", "21.99", 1) + "\n",
			"FAIL line 4 (BR05 Brasília-DF) A_rain_0.01pct_dB",
		},
		{
			// BR02 Belo Horizonte: the fade margin 42 → 12 dB changes every
			// margin-dependent figure of the row.
			"p530 fade margin", "p530_links_brazil.csv",
			strings.Replace(strings.Join(links, "\n"), ",42.0,65.22329897,", ",12.0,65.22329897,", 1) + "\n",
			"FAIL line 2 (BR02 Belo Horizonte-MG) pw_deep_fade_FM_worst_month_pct",
		},
		{
			// Manaus R_0.1 (inside the maps): 34.2316553 → 34.25 mm/h.
			"ITU rain rate inside the maps", "ITURP837-7_rainfall_rate.csv",
			strings.Replace(strings.Join(brRates, "\n"), "34.2316553", "34.25", 1) + "\n",
			"FAIL line 4 (lat=-3.11866 lon=-60.0212 p=0.1 Rp=34.25) Rp",
		},
	}
	for _, c := range corrupt {
		t.Run("corrupted/"+c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, bin, "itu", "check", "--cases", write(c.file, c.content))
			m := summaryRE.FindStringSubmatch(out)
			if code != 1 || m == nil || m[2] != "1" || !strings.Contains(out, c.failLine) {
				t.Errorf("exit %d, want 1 with one failed row naming %q\nstdout %s\nstderr %s", code, c.failLine, out, errOut)
			}
			if i, j := strings.Index(out, "FAIL"), strings.Index(out, "cases="); i < 0 || i > j {
				t.Errorf("the failing rows must come above the summary:\n%s", out)
			}
		})
	}

	t.Run("ITU rain rate inside the maps, uncorrupted", func(t *testing.T) {
		out, errOut, code := runCLI(t, bin, "itu", "check", "--cases", write("ITURP837-7_rainfall_rate.csv", strings.Join(brRates, "\n")+"\n"))
		if code != 0 || !strings.Contains(out, "cases=4 failed=0 skipped=1 ") {
			t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
	})
	t.Run("corrupted row outside the maps is skipped, not failed", func(t *testing.T) {
		// Kuala Lumpur R_0.01: 99.15117186 → 99.16 mm/h; the maps end at Brazil.
		bad := strings.Replace(strings.Join(rates, "\n"), "99.15117186", "99.16", 1) + "\n"
		out, errOut, code := runCLI(t, bin, "itu", "check", "--cases", write("ITURP837-7_rainfall_rate.csv", bad))
		if code != 0 || !strings.Contains(out, "cases=40 failed=0 skipped=40 ") || strings.Contains(out, "FAIL") {
			t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
	})

	// Order and presence: the corrupted row alone, and the file reversed,
	// give the same verdict for that row.
	t.Run("corrupted/row order and subset", func(t *testing.T) {
		bad := strings.Replace(links[3], "21.96852048", "21.99", 1)
		rev := []string{links[0]}
		for i := len(links) - 1; i >= 1; i-- {
			if i == 3 {
				rev = append(rev, bad)
			} else {
				rev = append(rev, links[i])
			}
		}
		for name, content := range map[string]string{
			"alone.csv":    links[0] + "\n" + bad + "\n",
			"reversed.csv": strings.Join(rev, "\n") + "\n",
		} {
			out, _, code := runCLI(t, bin, "itu", "check", "--cases", write(name, content))
			if code != 1 || !strings.Contains(out, "(BR05 Brasília-DF) A_rain_0.01pct_dB") || !strings.Contains(out, "failed=1 ") {
				t.Errorf("%s: exit %d\n%s", name, code, out)
			}
		}
		out, _, code := runCLI(t, bin, "itu", "check", "--cases", write("good-subset.csv", links[0]+"\n"+links[5]+"\n"+links[2]+"\n"))
		if code != 0 || !strings.Contains(out, "cases=2 failed=0 skipped=0 ") {
			t.Errorf("subset: exit %d\n%s", code, out)
		}
	})

	for _, c := range []struct{ name, content, want string }{
		{"not a reference table", "a,b\n1,2\n", "unrecognised header"},
		{"ragged row", links[0] + "\n" + links[1] + ",extra\n", "line 2"},
		{"empty", "", "empty"},
	} {
		t.Run("malformed/"+c.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, bin, "itu", "check", "--cases", write("bad.csv", c.content))
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, want 2 naming %q\nstderr %s", code, c.want, errOut)
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		out, _, code := runCLI(t, bin, "itu", "check", "--help")
		if code != 0 || !strings.Contains(out, "cases=N failed=N skipped=N max_abs_err=X") || !strings.Contains(out, "SKIPPED") {
			t.Errorf("exit %d\n%s", code, out)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, errOut, code := runCLI(t, bin, "itu", "check", "--cases", filepath.Join(dir, "nope.csv"))
		if code != 1 || !strings.Contains(errOut, "nope.csv") {
			t.Errorf("exit %d\n%s", code, errOut)
		}
	})
}

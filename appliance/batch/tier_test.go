package batch_test

import (
	"errors"
	"regexp"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/batch"
)

func TestTierLimits(t *testing.T) {
	msg := regexp.MustCompile(`^batch has (\d+) rows; the (\w+) tier allows at most (\d+) rows per job$`)
	cases := []struct {
		name  string
		tier  appliance.Tier
		limit int
		pdfs  int
	}{
		{"Starter", appliance.TierStarter, 100, 50},
		{"Pro", appliance.TierPro, 2000, 500},
		{"Business", appliance.TierBusiness, 5000, 5000},
		{"Enterprise", appliance.TierEnterprise, 10000, 100000},
		{"Ultra", appliance.TierUltra, 50000, 100000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if batch.Limit(c.tier) != c.limit || batch.PDFLimit(c.tier) != c.pdfs {
				t.Fatalf("limit %d pdfs %d", batch.Limit(c.tier), batch.PDFLimit(c.tier))
			}
			if err := batch.CheckTier(c.tier, c.limit); err != nil {
				t.Fatalf("exact limit refused: %v", err)
			}
			err := batch.CheckTier(c.tier, c.limit+1)
			var le *batch.LimitError
			if !errors.As(err, &le) || !errors.Is(err, appliance.ErrInvalid) || le.Limit != c.limit || le.Count != c.limit+1 || le.Tier != c.tier {
				t.Fatalf("over limit: %v", err)
			}
			m := msg.FindStringSubmatch(err.Error())
			if m == nil || m[1] != strconv.Itoa(c.limit+1) || m[2] != string(c.tier) || m[3] != strconv.Itoa(c.limit) {
				t.Fatalf("message %q", err)
			}
		})
	}
	t.Run("Free forbidden", func(t *testing.T) {
		err := batch.CheckTier(appliance.TierFree, 1)
		if !errors.Is(err, appliance.ErrForbidden) || err.Error() != "batch reports are not available on the Free tier: forbidden" {
			t.Fatalf("got %v", err)
		}
		if batch.PDFLimit(appliance.TierFree) != 5 {
			t.Fatal("free pdfs")
		}
	})
	t.Run("erased forbidden", func(t *testing.T) {
		if err := batch.CheckTier(appliance.TierErased, 1); !errors.Is(err, appliance.ErrForbidden) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if err := batch.CheckTier(appliance.TierPro, 0); !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("got %v", err)
		}
	})
}

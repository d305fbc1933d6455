package store

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// Buckets of the tenants' building layers (raytrace, issue 24): the layer
// records and, apart, their buildings (gzip-compressed JSON), both keyed
// by tenant id + 0x00 + layer id.
var (
	bucketBuildingLayers = []byte("building_layers")
	bucketBuildingData   = []byte("building_data")
)

// buildingLayerRecord is the stored shape of a layer: the domain record
// with its tenant and bounds, which the wire hides.
type buildingLayerRecord struct {
	appliance.BuildingLayer
	TenantID string         `json:"tenant_id"`
	Bounds   appliance.BBox `json:"bounds"`
}

func layerKey(tenantID, id string) []byte {
	return append(append([]byte(tenantID), 0), id...)
}

// BuildingLayerUsage returns how many layers the tenant holds and their
// uploaded bytes, the figures its building-layer quota counts.
func (db *DB) BuildingLayerUsage(tenantID string) (layers int, bytes int64, err error) {
	err = db.bolt.View(func(tx *bolt.Tx) error {
		layers, bytes, err = buildingUsageTx(tx, tenantID)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("building layer usage: %w", err)
	}
	return layers, bytes, nil
}

func buildingUsageTx(tx *bolt.Tx, tenantID string) (int, int64, error) {
	prefix := layerKey(tenantID, "")
	c := tx.Bucket(bucketBuildingLayers).Cursor()
	n, total := 0, int64(0)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var rec buildingLayerRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return 0, 0, fmt.Errorf("decode layer %q: %w", k, err)
		}
		n++
		total += rec.SizeBytes
	}
	return n, total, nil
}

// PutBuildingLayer stores a new layer and its buildings, with the audit
// entries, in one transaction that first checks the tenant's quota: at
// most maxLayers layers and maxBytes uploaded bytes in all (an error
// matching appliance.ErrQuota otherwise).
func (db *DB) PutBuildingLayer(l *appliance.BuildingLayer, bs []appliance.Building, maxLayers int, maxBytes int64, audit ...appliance.AuditEntry) error {
	raw, err := json.Marshal(buildingLayerRecord{BuildingLayer: *l, TenantID: l.TenantID, Bounds: l.Bounds})
	if err != nil {
		return fmt.Errorf("put building layer: encode: %w", err)
	}
	var data bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&data, gzip.BestSpeed)
	if err := json.NewEncoder(zw).Encode(bs); err != nil {
		return fmt.Errorf("put building layer: encode buildings: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("put building layer: %w", err)
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		n, total, err := buildingUsageTx(tx, l.TenantID)
		if err != nil {
			return err
		}
		if n+1 > maxLayers {
			return fmt.Errorf("the tenant holds %d building layers, the most its tier allows; delete one first: %w", n, appliance.ErrQuota)
		}
		if total+l.SizeBytes > maxBytes {
			return fmt.Errorf("the tenant's building layers hold %d bytes; %d more would pass its tier's %d: %w", total, l.SizeBytes, maxBytes, appliance.ErrQuota)
		}
		k := layerKey(l.TenantID, l.ID)
		if tx.Bucket(bucketBuildingLayers).Get(k) != nil {
			return fmt.Errorf("building layer %q exists: %w", l.ID, appliance.ErrConflict)
		}
		if err := tx.Bucket(bucketBuildingLayers).Put(k, raw); err != nil {
			return err
		}
		if err := tx.Bucket(bucketBuildingData).Put(k, data.Bytes()); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("put building layer: %w", err)
	}
	return nil
}

// BuildingLayers returns the tenant's layers, oldest first.
func (db *DB) BuildingLayers(tenantID string) ([]*appliance.BuildingLayer, error) {
	var out []*appliance.BuildingLayer
	prefix := layerKey(tenantID, "")
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketBuildingLayers).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var rec buildingLayerRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("decode layer %q: %w", k, err)
			}
			l := rec.BuildingLayer
			l.TenantID, l.Bounds = rec.TenantID, rec.Bounds
			out = append(out, &l)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("building layers: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CreatedUnix != out[j].CreatedUnix {
			return out[i].CreatedUnix < out[j].CreatedUnix
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// BuildingLayer returns one of the tenant's layers and its buildings, or
// an error matching appliance.ErrNotFound (also for another tenant's).
func (db *DB) BuildingLayer(tenantID, id string, withBuildings bool) (*appliance.BuildingLayer, []appliance.Building, error) {
	var rec buildingLayerRecord
	var data []byte
	err := db.bolt.View(func(tx *bolt.Tx) error {
		k := layerKey(tenantID, id)
		raw := tx.Bucket(bucketBuildingLayers).Get(k)
		if raw == nil {
			return fmt.Errorf("no building layer %q: %w", id, appliance.ErrNotFound)
		}
		if withBuildings {
			data = append([]byte(nil), tx.Bucket(bucketBuildingData).Get(k)...)
		}
		return json.Unmarshal(raw, &rec)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("building layer: %w", err)
	}
	l := rec.BuildingLayer
	l.TenantID, l.Bounds = rec.TenantID, rec.Bounds
	if !withBuildings {
		return &l, nil, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("building layer %q: buildings: %w", id, err)
	}
	var bs []appliance.Building
	if err := json.NewDecoder(io.LimitReader(zr, 1<<32)).Decode(&bs); err != nil {
		return nil, nil, fmt.Errorf("building layer %q: buildings: %w", id, err)
	}
	return &l, bs, nil
}

// DeleteBuildingLayer deletes one of the tenant's layers with the audit
// entries (appliance.ErrNotFound when there is none).
func (db *DB) DeleteBuildingLayer(tenantID, id string, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		k := layerKey(tenantID, id)
		if tx.Bucket(bucketBuildingLayers).Get(k) == nil {
			return fmt.Errorf("no building layer %q: %w", id, appliance.ErrNotFound)
		}
		if err := tx.Bucket(bucketBuildingLayers).Delete(k); err != nil {
			return err
		}
		if err := tx.Bucket(bucketBuildingData).Delete(k); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("delete building layer: %w", err)
	}
	return nil
}

package billing

import (
	"bytes"
	"encoding/json"
	"unicode"

	"linkplan/appliance"
)

// Event types the appliance acts on (Stripe's names).
const (
	EventCheckoutCompleted   = "checkout.session.completed"
	EventSubscriptionDeleted = "customer.subscription.deleted"
)

// Event is a payment-provider event (Stripe's envelope).
type Event struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Created int64  `json:"created"`
	Data    struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// CheckoutSession is the object of a checkout.session.completed event, as
// far as provisioning needs it.
type CheckoutSession struct {
	ID                string `json:"id"`
	Customer          string `json:"customer"`
	Subscription      string `json:"subscription"`
	CustomerEmail     string `json:"customer_email"`
	ClientReferenceID string `json:"client_reference_id"`
	PaymentStatus     string `json:"payment_status"`
	CustomerDetails   struct {
		Email string `json:"email"`
		Name  string `json:"name"`
	} `json:"customer_details"`
	Metadata struct {
		Tier     string `json:"tier"`
		TenantID string `json:"tenant_id"`
	} `json:"metadata"`
}

// Subscription is the object of a customer.subscription.deleted event.
type Subscription struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
}

// maxIDBytes bounds the ids of events, sessions and customers.
const maxIDBytes = 255

// ParseEvent decodes a webhook body: a JSON object with a non-empty id
// and type (ids: at most 255 printable characters) and a data.object. A
// body that is not one is an appliance.ErrInvalid error naming the field.
func ParseEvent(body []byte) (*Event, error) {
	var e Event
	d := json.NewDecoder(bytes.NewReader(body))
	if err := d.Decode(&e); err != nil {
		return nil, appliance.Invalid("body", "must be a JSON event object: %v", err)
	}
	if d.More() {
		return nil, appliance.Invalid("body", "must hold one JSON object")
	}
	v := &appliance.ValidationError{}
	checkID(v, "id", e.ID, true)
	checkID(v, "type", e.Type, true)
	if len(e.Data.Object) == 0 || e.Data.Object[0] != '{' {
		v.Add("data.object", "must be an object")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return &e, nil
}

// checkID checks an identifier: at most maxIDBytes printable ASCII
// characters, required or not.
func checkID(v *appliance.ValidationError, field, s string, required bool) {
	if s == "" {
		if required {
			v.Add(field, "is required")
		}
		return
	}
	if len(s) > maxIDBytes {
		v.Add(field, "must be at most %d bytes", maxIDBytes)
		return
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) || r == ' ' {
			v.Add(field, "must be printable ASCII without spaces")
			return
		}
	}
}

func decodeObject(e *Event, into any) error {
	if err := json.Unmarshal(e.Data.Object, into); err != nil {
		return appliance.Invalid("data.object", "does not have the fields of a %s event: %v", e.Type, err)
	}
	return nil
}

package appliance

// SSOBinding is a tenant membership of an identity-provider subject (SPEC
// §5.1.2): a verified ID token of (Issuer, Subject) acts with the API key
// KeyID, so with that key's tenant, tier and role.
type SSOBinding struct {
	Issuer      string `json:"issuer"`  // the token's iss, exactly as the issuer writes it
	Subject     string `json:"subject"` // the token's sub
	KeyID       string `json:"key_id"`  // id of the bound API key
	TenantID    string `json:"tenant_id"`
	CreatedUnix int64  `json:"created_unix"` // epoch seconds
	CreatedBy   string `json:"created_by"`   // id of the key that created the binding
}

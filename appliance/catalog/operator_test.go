package catalog_test

import (
	"testing"

	"linkplan/appliance/catalog"
)

func TestNormalizeOperator(t *testing.T) {
	cases := []struct{ in, want string }{
		{"TELEFONICA BRASIL S.A.", "Vivo"},
		{"TELEFÔNICA BRASIL S.A.", "Vivo"},
		{"Telefónica Brasil Sa", "Vivo"},
		{"TELEFONICA BRASIL SA", "Vivo"},
		{"VIVO", "Vivo"},
		{"vivo s.a.", "Vivo"},
		{"TIM S/A", "TIM"},
		{"TIM", "TIM"},
		{"Telecom Italia Mobile", "TIM"},
		{"CLARO", "Claro"},
		{"CLARO S.A.", "Claro"},
		{"TNL PCS Oi", "Oi"},
		{"OI MOVEL S.A.", "Oi"},
		{"Algar Telecom S.A.", "Algar"},
		{"Sercomtel Celular", "Sercomtel"},
		{"Unifique Telecomunicações S/A", "Unifique"},
		{"NII Holdings, Inc.", "Nextel"},
		{"NEXTEL TELECOMUNICAÇÕES LTDA", "Nextel"},
		{"AMAZONIA CELULAR S/A", "Amazônia Celular"},
		{"  BRISANET   SERVICOS DE TELECOMUNICACOES S.A. ", "Brisanet Servicos De Telecomunicacoes S.A."},
		{"Ligue Telecom", "Ligue Telecom"},
		{"Timbó Net", "Timbó Net"}, // "tim" only as a whole word
		{"", ""},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			if got := catalog.NormalizeOperator(c.in); got != c.want {
				t.Errorf("NormalizeOperator(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestOperatorForMNC(t *testing.T) {
	cases := []struct {
		mnc  int
		want string
		ok   bool
	}{
		{2, "TIM", true}, {3, "TIM", true}, {4, "TIM", true},
		{5, "Claro", true}, {12, "Claro", true}, {38, "Claro", true},
		{6, "Vivo", true}, {10, "Vivo", true}, {11, "Vivo", true}, {23, "Vivo", true},
		{15, "Sercomtel", true}, {16, "Oi", true}, {24, "Amazônia Celular", true},
		{29, "Unifique", true}, {31, "Oi", true}, {32, "Algar", true}, {39, "Nextel", true},
		{28, "", false}, // "No name" in the table
		{77, "", false}, // not in the table
	}
	for _, c := range cases {
		op, ok := catalog.OperatorForMNC(c.mnc)
		if ok != c.ok || op.Operator != c.want {
			t.Errorf("OperatorForMNC(%d) = %q, %v; want %q, %v", c.mnc, op.Operator, ok, c.want, c.ok)
		}
	}
	if op, _ := catalog.OperatorForMNC(31); op.Operational {
		t.Error("MNC 31 (Oi) should be marked not operational")
	}
}

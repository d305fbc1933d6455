package tenancy

import "testing"

func TestAddressGroup(t *testing.T) {
	tests := []struct {
		name, ip, want string
	}{
		{name: "IPv4 is its own group", ip: "198.51.100.9", want: "198.51.100.9"},
		{name: "IPv4 neighbour is another group", ip: "198.51.100.10", want: "198.51.100.10"},
		{name: "IPv4-mapped IPv6 counts as IPv4", ip: "::ffff:198.51.100.9", want: "198.51.100.9"},
		{name: "IPv6 grouped by /64", ip: "2001:db8:1:2:aaaa:bbbb:cccc:dddd", want: "2001:db8:1:2::/64"},
		{name: "another address of the same /64", ip: "2001:db8:1:2::1", want: "2001:db8:1:2::/64"},
		{name: "next /64 is another group", ip: "2001:db8:1:3::1", want: "2001:db8:1:3::/64"},
		{name: "zone dropped", ip: "fe80::1%eth0", want: "fe80::/64"},
		{name: "not an address kept as given", ip: "@unix", want: "@unix"},
		{name: "unknown client", ip: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := addressGroup(tc.ip); got != tc.want {
				t.Errorf("addressGroup(%q) = %q, want %q", tc.ip, got, tc.want)
			}
		})
	}
}

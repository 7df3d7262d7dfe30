module dispatch

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/alecthomas/kong v1.17.0
	github.com/dustin/go-humanize v1.1.0
	github.com/mark3labs/mcp-go v1.2.1
	github.com/tidwall/gjson v1.20.1
	github.com/yosida95/uritemplate/v3 v3.0.2
	golang.org/x/sys v0.49.0
)

require (
	github.com/danieljoos/wincred v1.2.3 // indirect
	github.com/godbus/dbus/v5 v5.2.2 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/zalando/go-keyring v0.2.8 // indirect
	golang.org/x/text v0.14.0 // indirect
)

replace github.com/santhosh-tekuri/jsonschema/v6 => ./third_party/jsonschema

replace github.com/yosida95/uritemplate/v3 => ./third_party/uritemplate

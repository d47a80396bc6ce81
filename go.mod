module github.com/fdyno/fdyno

go 1.24

require (
	github.com/apple/foundationdb/bindings/go v0.0.0-20260629183922-51e1c42eb9a8 // indirect
	github.com/cockroachdb/apd/v3 v3.2.3 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

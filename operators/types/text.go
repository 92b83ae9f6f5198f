package types

// MarshalText encodes the type as its String form, so that DataType can be
// a JSON value.
func (t DataType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText decodes a String form: "unknown" is the zero type, an
// unmodelled Spark type becomes Unsupported, anything else must Parse.
func (t *DataType) UnmarshalText(b []byte) error {
	s := string(b)
	switch s {
	case "unknown":
		*t = Unknown
		return nil
	case "unsupported":
		*t = UnsupportedType("")
		return nil
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

package exchange

import (
	"math"
	"testing"
)

// Known values of Spark's hash() (Murmur3Hash, seed 42). Sources: Spark
// 3.x `SELECT hash(x)` results gathered in the project's
// spark-semantics.md, the SQL function docs' example, DataFusion's and
// Gluten's Spark-compatibility tests (which were checked against Spark).
func TestKnownSparkHashes(t *testing.T) {
	tests := []struct {
		name string
		got  int32
		want int32
	}{
		{"int 0", HashInt(0, 42), 933211791},
		{"int 1", HashInt(1, 42), -559580957},
		{"int 2", HashInt(2, 42), 1765031574},
		{"int 3", HashInt(3, 42), -1823081949},
		{"int 4", HashInt(4, 42), -397064898},
		{"int -1", HashInt(-1, 42), -1604776387},
		{"long 0", HashLong(0, 42), -1670924195},
		{"long 1", HashLong(1, 42), -1712319331},
		{"long -1", HashLong(-1, 42), -939490007},
		{"boolean true", HashBool(true, 42), -559580957},
		{"boolean false", HashBool(false, 42), 933211791},
		{"string hello world", HashBytes([]byte("hello world"), 42), -1528836094},
		{"string hello", HashBytes([]byte("hello"), 42), int32(-1008564952)}, // 3286402344 unsigned
		{"string empty", HashBytes(nil, 42), 142593372},
		{"string abc", HashBytes([]byte("abc"), 42), 1322437556},
		{"bytes 00 c8 (sign-extended tail)", HashBytes([]byte{0, 0xc8}, 42), -424716282},
		{"double 123.456", HashDouble(123.456, 42), -39269148},
		// hash('Spark', array(123), 2): an array hashes its elements in turn.
		{"'Spark', array(123), 2", HashInt(2, HashInt(123, HashBytes([]byte("Spark"), 42))), -1321691492},
		// A date is its day number hashed as an int; 1970-01-01 is day 0.
		{"date 1970-01-01", HashInt(0, 42), 933211791},
		// decimal(p<=18): hashLong of the unscaled value; 1.00 as decimal(3,2) is 100.
		{"decimal(10,0) 1", HashDecimal128(0, 1, 10, 42), -1712319331},
		{"decimal(38,0) 0 (BigInteger bytes [00])", HashDecimal128(0, 0, 38, 42), HashBytes([]byte{0}, 42)},
		{"decimal(20,0) -1 (bytes [ff])", HashDecimal128(-1, math.MaxUint64, 20, 42), HashBytes([]byte{0xff}, 42)},
		{"decimal(20,0) 128 (bytes [00 80])", HashDecimal128(0, 128, 20, 42), HashBytes([]byte{0, 0x80}, 42)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestFloatNormalisation(t *testing.T) {
	negZero := math.Copysign(0, -1)
	otherNaN := math.Float64frombits(0x7ff0000000000001)
	tests := []struct {
		name      string
		got, want int32
	}{
		{"double -0.0 == 0.0", HashDouble(negZero, 42), HashDouble(0, 42)},
		{"double 0.0 is long 0", HashDouble(0, 42), HashLong(0, 42)},
		{"double NaN payload canonical", HashDouble(otherNaN, 42), HashLong(0x7ff8000000000000, 42)},
		{"float -0.0 == 0.0", HashFloat(float32(negZero), 42), HashInt(0, 42)},
		{"float NaN canonical", HashFloat(math.Float32frombits(0x7f800001), 42), HashInt(0x7fc00000, 42)},
		{"float 1.0 bits", HashFloat(1, 42), HashInt(0x3f800000, 42)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestPmod(t *testing.T) {
	tests := []struct{ a, n, want int32 }{
		{7, 5, 2}, {-7, 5, 3}, {-5, 5, 0}, {0, 1, 0}, {math.MinInt32, 200, 152}, {math.MaxInt32, 200, 47}, {42, 200, 42},
	}
	for _, tt := range tests {
		if got := Pmod(tt.a, tt.n); got != tt.want {
			t.Errorf("Pmod(%d, %d) = %d, want %d", tt.a, tt.n, got, tt.want)
		}
	}
}

package pipeline

import (
	"fmt"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/types"
)

// VTypeOf maps a Spark type to the device's physical value type.
func VTypeOf(t types.DataType) (device.VType, error) {
	switch t.Kind {
	case types.Boolean:
		return device.VTBool, nil
	case types.Int, types.Date:
		return device.VTI32, nil
	case types.Long, types.Timestamp, types.TimestampNTZ:
		return device.VTI64, nil
	case types.Double:
		return device.VTF64, nil
	case types.Decimal:
		if t.Precision <= 18 {
			return device.VTI64, nil
		}
		return device.VTI128, nil
	case types.String:
		return device.VTStr, nil
	}
	return 0, &Unsupported{Code: ReasonDataType, Msg: fmt.Sprintf("data type %s is not supported on the device", t)}
}

// ReasonCode is a stable code for why something cannot run on the device;
// RACE reports it as the fallback reason.
type ReasonCode string

const (
	ReasonDataType   ReasonCode = "unsupported-data-type"
	ReasonExpression ReasonCode = "unsupported-expression"
	ReasonLimit      ReasonCode = "pipeline-limit"
	ReasonShape      ReasonCode = "unsupported-argument-shape"
)

// Unsupported is the error of an expression the device cannot evaluate.
type Unsupported struct {
	Code ReasonCode
	Msg  string
}

func (u *Unsupported) Error() string { return u.Msg }

package refs

import (
	"time"

	"github.com/machinestatus/machinestatus/status"
)

// t0 is the tests' fixed instant.
var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus seconds.
func at(seconds int) time.Time { return t0.Add(time.Duration(seconds) * time.Second) }

// provisioned is a provisioned infrastructure object.
func provisioned() status.Ref {
	return status.Ref{Kind: "UpMachine", Name: "up-2", Exists: true, Contract: status.Contract{Ready: true}}
}

package conditions

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StoredTime returns t as the API server stores and returns a metav1.Time: RFC 3339, so whole
// seconds (the fraction is dropped, not rounded), read back in the local location. A time
// written as StoredTime(t) compares equal (==, reflect.DeepEqual, equality.Semantic) to what a
// later read of the object returns, so a derivation that re-reads its own output changes nothing.
// It is metav1.Time.Rfc3339Copy without formatting and parsing. The zero time stays the zero
// metav1.Time (which the API server writes as null).
func StoredTime(t time.Time) metav1.Time {
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(t.Truncate(time.Second).Local())
}

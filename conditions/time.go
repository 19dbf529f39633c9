package conditions

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StoredTime returns t as the API server stores it and metav1.Time.UnmarshalJSON reads it back:
// RFC 3339, so whole seconds (the fraction is dropped, not rounded), in the local location. A time
// written as StoredTime(t) compares equal (==, reflect.DeepEqual, equality.Semantic) to what a
// later read of the object returns, so a derivation that re-reads its own output changes nothing.
// A time that is zero once truncated (including the zero time) is the zero metav1.Time, which the
// API server writes as null.
func StoredTime(t time.Time) metav1.Time {
	t = t.Truncate(time.Second)
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(t.Local())
}

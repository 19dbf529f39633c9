package jsontype

import "strings"

// TypeError says that a decoded JSON value has the wrong type: "must be a boolean, not a
// string". It names no field: the caller knows where it read (see FieldError).
type TypeError struct {
	// Want is the type the value must have, as Of names it (e.g. "a boolean").
	Want string
	// Got is the type it has, as Of names it.
	Got string
}

// Error implements error.
func (e *TypeError) Error() string { return "must be " + e.Want + ", not " + e.Got }

// FieldError says which field of a decoded object cannot be read and why, e.g.
// "status.ready: must be a boolean, not a string". Values are never quoted, so the error stays
// short whatever the object holds.
type FieldError struct {
	// Path is the field's dotted path from the object read, e.g. "status.ready".
	Path string
	// Err says what is wrong with it, usually a *TypeError.
	Err error
}

// Error implements error.
func (e *FieldError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *FieldError) Unwrap() error { return e.Err }

// get returns m[key] as a T, where want names T as Of does. A missing or null value is not found
// (false, no error); a value of another type is a *TypeError.
func get[T any](m map[string]any, key, want string) (T, bool, error) {
	var zero T
	v, ok := m[key]
	if !ok || v == nil {
		return zero, false, nil
	}
	t, ok := v.(T)
	if !ok {
		return zero, false, &TypeError{Want: want, Got: Of(v)}
	}
	return t, true, nil
}

// Object returns m[key] as an object; missing or null is not found; another type is a *TypeError.
func Object(m map[string]any, key string) (map[string]any, bool, error) {
	return get[map[string]any](m, key, "an object")
}

// List returns m[key] as a list, like Object.
func List(m map[string]any, key string) ([]any, bool, error) {
	return get[[]any](m, key, "a list")
}

// String returns m[key] as a string, like Object.
func String(m map[string]any, key string) (string, bool, error) {
	return get[string](m, key, "a string")
}

// Bool returns m[key] as a boolean, like Object.
func Bool(m map[string]any, key string) (bool, bool, error) {
	return get[bool](m, key, "a boolean")
}

// Nested reads the field at path of obj with read (Object, List, String or Bool). A missing or
// null value on the way or at the end is not found; a value of the wrong type, on the way (not an
// object) or at the end, is a *FieldError naming it. An empty path names no field: not found.
func Nested[T any](obj map[string]any, read func(map[string]any, string) (T, bool, error), path ...string) (T, bool, error) {
	var zero T
	if len(path) == 0 {
		return zero, false, nil
	}
	m := obj
	for i, key := range path[:len(path)-1] {
		next, found, err := Object(m, key)
		if err != nil {
			return zero, false, &FieldError{Path: strings.Join(path[:i+1], "."), Err: err}
		}
		if !found {
			return zero, false, nil
		}
		m = next
	}
	v, found, err := read(m, path[len(path)-1])
	if err != nil {
		return zero, false, &FieldError{Path: strings.Join(path, "."), Err: err}
	}
	return v, found, nil
}

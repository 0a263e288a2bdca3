package storage

import (
	"fmt"
	"path"
	"strings"
)

// CleanKey normalises a key and refuses one that is absolute or would leave
// the store root (a hostile add path such as "../../etc/passwd").
func CleanKey(key string) (string, error) {
	if key == "" {
		return "", fmt.Errorf("empty key")
	}
	if strings.HasPrefix(key, "/") || strings.Contains(key, "\x00") {
		return "", fmt.Errorf("key %q is not relative to the store root", key)
	}
	c := path.Clean(key)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("key %q leaves the store root", key)
	}
	return c, nil
}

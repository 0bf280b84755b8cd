//go:build tools

// Package tools pins module dependencies that are used by packages still
// being written, so that go mod tidy keeps them.
package tools

import (
	_ "github.com/redis/go-redis/v9"
	_ "github.com/rs/zerolog"
	_ "github.com/tidwall/redcon"
	_ "golang.org/x/sys/unix"
	_ "gopkg.in/yaml.v3"
)

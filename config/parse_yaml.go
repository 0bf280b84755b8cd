package config

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// ParseYAML applies a YAML configuration to c. The document is a mapping
// whose keys are directive names (aliases and include accepted) and whose
// values are:
//
//   - a scalar: the directive's single argument; for directives taking
//     several arguments (save, bind, client-output-buffer-limit, ...) it is
//     split on blanks like a CONFIG SET value. true/false become yes/no.
//   - a list of scalars: the arguments of one directive line.
//   - a list of lists: one directive line per inner list (e.g. repeated
//     save or client-output-buffer-limit lines).
//
// Errors are *ParseError with the YAML line of the key, worded like Redis.
func ParseYAML(c *Config, r io.Reader, file string) error {
	return c.parseYAML(r, file, 0)
}

func (c *Config) parseYAML(r io.Reader, file string, depth int) error {
	if c.raw == nil {
		return errors.New("config: ParseYAML needs a Config from Default or Load")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxConfigSize+1))
	if err != nil {
		return fmt.Errorf("config: reading %s: %w", file, err)
	}
	if len(data) > maxConfigSize {
		return fmt.Errorf("config: %s larger than %d bytes", file, maxConfigSize)
	}
	srcLines := strings.Split(string(data), "\n")
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &ParseError{File: file, Reason: "Invalid YAML: " + err.Error()}
	}
	if len(doc.Content) == 0 {
		return nil // empty document
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &ParseError{File: file, Line: root.Line, Text: lineAt(srcLines, root.Line), Reason: "YAML config must be a mapping of directive names to values"}
	}
	c.readingFile = true
	defer func() { c.readingFile = false }()
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		fail := func(reason string) error {
			return &ParseError{File: file, Line: k.Line, Text: lineAt(srcLines, k.Line), Reason: reason}
		}
		if k.Kind != yaml.ScalarNode {
			return fail("Bad directive or wrong number of arguments")
		}
		lines, ok := yamlLines(k.Value, v)
		if !ok {
			return fail("YAML value must be a scalar, a list, or a list of lists")
		}
		for _, args := range lines {
			reason, err := c.apply(append([]string{k.Value}, args...), file, depth)
			if err != nil {
				return err
			}
			if reason != "" {
				return fail(reason)
			}
			c.readingFile = true // include clears it, as in redis.conf
		}
	}
	return nil
}

func lineAt(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return trimLine(lines[n-1])
}

// yamlLines turns a YAML value into the argument lists of directive lines.
func yamlLines(name string, v *yaml.Node) ([][]string, bool) {
	d, _ := lookup(name)
	multi := d != nil && d.has(fMultiArg)
	scalar := func(n *yaml.Node) string {
		if n.Tag == "!!null" {
			return ""
		}
		if n.Tag == "!!bool" {
			switch strings.ToLower(n.Value) {
			case "true", "yes", "on":
				return "yes"
			case "false", "no", "off":
				return "no"
			}
		}
		return n.Value
	}
	argsOf := func(n *yaml.Node) []string {
		s := scalar(n)
		if multi {
			if f := strings.Fields(s); len(f) > 0 {
				return f
			}
		}
		return []string{s}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		return [][]string{argsOf(v)}, true
	case yaml.SequenceNode:
		if len(v.Content) > 0 && v.Content[0].Kind == yaml.SequenceNode {
			var out [][]string
			for _, e := range v.Content {
				if e.Kind != yaml.SequenceNode {
					return nil, false
				}
				var args []string
				for _, s := range e.Content {
					if s.Kind != yaml.ScalarNode {
						return nil, false
					}
					args = append(args, scalar(s))
				}
				out = append(out, args)
			}
			return out, true
		}
		var args []string
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, false
			}
			args = append(args, argsOf(e)...)
		}
		return [][]string{args}, true
	case yaml.AliasNode:
		if v.Alias != nil {
			return yamlLines(name, v.Alias)
		}
	}
	return nil, false
}

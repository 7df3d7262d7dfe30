package connections

import (
	"errors"
	"strings"
)

// SplitCommandLine splits a command line the way a POSIX shell splits words:
// single quotes keep everything literally, double quotes allow \" \\ \$ and
// \` escapes, and a backslash outside quotes escapes the next character. It
// does no expansion of any kind; ${VAR} is expanded later, on purpose, so
// that a secret never passes through a shell.
func SplitCommandLine(line string) ([]string, error) {
	var (
		words   []string
		current strings.Builder
		inWord  bool
	)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, current.String())
				current.Reset()
				inWord = false
			}
		case ch == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("command line ends with a lone backslash")
			}
			i++
			current.WriteByte(line[i])
			inWord = true
		case ch == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("command line has an unterminated single quote")
			}
			current.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case ch == '"':
			closed := false
			for i++; i < len(line); i++ {
				c := line[i]
				if c == '"' {
					closed = true
					break
				}
				if c == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
					c = line[i]
				}
				current.WriteByte(c)
			}
			if !closed {
				return nil, errors.New("command line has an unterminated double quote")
			}
			inWord = true
		default:
			current.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, current.String())
	}
	if len(words) == 0 {
		return nil, errors.New("command line is empty")
	}
	return words, nil
}

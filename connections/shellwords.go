package connections

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommandLine splits a command line the way a POSIX shell splits words:
// single quotes keep everything literally, double quotes allow \" \\ \$ and
// \` escapes, and a backslash outside quotes escapes the next character. It
// does no expansion of any kind; ${VAR} is expanded later, on purpose, so
// that a secret never passes through a shell.
//
// On Windows a backslash is a path separator, so there it is literal,
// except before a double quote (\" is a quote, in quotes or not):
// C:\Tools\server.exe --demo is what a Windows user writes.
func SplitCommandLine(line string) ([]string, error) {
	return splitCommandLine(line, backslashIsLiteral)
}

func splitCommandLine(line string, literalBackslash bool) ([]string, error) {
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
		case ch == '\\' && literalBackslash:
			if i+1 < len(line) && line[i+1] == '"' {
				i++
			}
			current.WriteByte(line[i])
			inWord = true
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
				if c == '\\' && i+1 < len(line) && strings.IndexByte(quotedEscapes(literalBackslash), line[i+1]) >= 0 {
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

// quotedEscapes is what a backslash escapes inside double quotes.
func quotedEscapes(literalBackslash bool) string {
	if literalBackslash {
		return `"`
	}
	return "\"\\$`"
}

// lostBackslashes is the error for an --mcp spec whose command was a
// Windows path (C:\Tools\server.exe) split by the POSIX rules, which took
// its backslashes as escapes (C:Toolsserver.exe), or nil.
func lostBackslashes(spec, command string) error {
	if backslashIsLiteral || !strings.ContainsRune(spec, '\\') || len(command) < 3 || command[1] != ':' ||
		!isASCIIAlnum(rune(command[0])) || command[2] == '\\' || command[2] == '/' {
		return nil
	}
	return fmt.Errorf("command %q looks like a Windows path that lost its backslashes: in --mcp a backslash escapes the next character, as in a shell; put the path in 'single quotes', double each backslash, or use forward slashes (C:/Tools/server.exe)", command)
}

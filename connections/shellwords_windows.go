package connections

// backslashIsLiteral: on Windows a backslash in a command line is a path
// separator (see SplitCommandLine).
const backslashIsLiteral = true

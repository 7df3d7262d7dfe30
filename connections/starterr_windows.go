package connections

// dotCommandAdvice ends the error for a program found in the current
// directory (dotCommandErr).
const dotCommandAdvice = "to use the one in PATH, set the environment variable NoDefaultCurrentDirectoryInExePath or start dispatch from another directory"

// notExecutableAdvice ends the error for a file Windows cannot run.
const notExecutableAdvice = "Windows runs only the file types in PATHEXT (.exe, .cmd, .bat, ...): give its interpreter as the command (node FILE, python FILE), or the .cmd or .exe beside it"

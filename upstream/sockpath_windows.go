package upstream

// MaxSocketPathBytes is the size of sun_path in sockaddr_un on Windows
// (UNIX_PATH_MAX): a socket path may be one byte shorter (the ending NUL).
const MaxSocketPathBytes = 108

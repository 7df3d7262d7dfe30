package upstream

// MaxSocketPathBytes is the size of sun_path in sockaddr_un on Linux: a
// socket path may be one byte shorter (the ending NUL).
const MaxSocketPathBytes = 108

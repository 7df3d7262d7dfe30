// Package rawjson reads and writes JSON at the byte level: for the hot
// path of a proxied call, where encoding/json's reflection and
// re-validation of values already known to be valid cost more than the
// call's own work, and to bound nesting before a recursive validator
// (gjson's) reads input from a peer.
// It imports only the standard library; its functions are pure.
package rawjson

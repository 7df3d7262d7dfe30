package connections

import (
	"bytes"
	"encoding/json"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/tidwall/gjson"

	"dispatch/rawjson"
)

// encodeRequest writes a request as one line. A tools/call of the plain
// kind (arguments and a name, nothing else) is written directly: through
// encoding/json, reflection and re-checking arguments already known to be
// valid were a tenth of a small call's cost in dispatch.
func encodeRequest(request transport.JSONRPCRequest) ([]byte, error) {
	params, ok := request.Params.(*callParams) // StartCall's
	if value, isValue := request.Params.(callParams); isValue {
		params, ok = &value, true
	}
	if ok && params.plain() {
		id, idOK := request.ID.Value().(string)
		if idOK {
			line := make([]byte, 0, 96+len(params.Name)+len(params.Arguments))
			line = append(line, `{"jsonrpc":`...)
			line = rawjson.AppendString(line, request.JSONRPC)
			line = append(line, `,"id":`...)
			line = rawjson.AppendString(line, id)
			line = append(line, `,"method":`...)
			line = rawjson.AppendString(line, request.Method)
			line = append(line, `,"params":{"name":`...)
			line = rawjson.AppendString(line, params.Name)
			if len(params.Arguments) > 0 {
				line = append(line, `,"arguments":`...)
				line = append(line, params.Arguments...)
			}
			return append(line, "}}\n"...), nil
		}
	}
	data, err := json.Marshal(request)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// plain reports whether p is only a name and arguments that are one valid
// JSON value on one line (encoding/json would compact a value spread over
// lines, as an argumentsFile may be written).
func (p *callParams) plain() bool {
	return len(p.Meta) == 0 && p.Task == nil && len(p.InputResponses) == 0 && p.RequestState == "" &&
		(len(p.Arguments) == 0 || (bytes.IndexByte(p.Arguments, '\n') < 0 && (p.argumentsValid || gjson.ValidBytes(p.Arguments))))
}

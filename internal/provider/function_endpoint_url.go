package provider

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

var _ function.Function = (*endpointURLFunction)(nil)

// NewEndpointURLFunction returns endpoint_url(host, port, tls, scheme, query) string.
func NewEndpointURLFunction() function.Function { return &endpointURLFunction{} }

type endpointURLFunction struct{}

func (f *endpointURLFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "endpoint_url"
}

func (f *endpointURLFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Build an exposed port's URL as the Python SDK's url_for",
		MarkdownDescription: "The Python SDK's `ExposedPortEndpoint(host, port, tls, query).url_for(scheme)`: `scheme` " +
			"is `http` or `ws` (any case); TLS turns them into `https`/`wss`; the port is omitted only when it is the " +
			"default (443 with TLS, 80 without); an IPv6 host is bracketed; the path is always `/`; one leading `?` of " +
			"`query` is dropped and the rest appended. Any other scheme fails with `scheme must be either 'http' or 'ws'`.",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "host", MarkdownDescription: "Host name or IP address."},
			function.NumberParameter{Name: "port", MarkdownDescription: "TCP port, a whole number from 1 to 65535."},
			function.BoolParameter{Name: "tls", MarkdownDescription: "Whether the endpoint uses TLS."},
			function.StringParameter{Name: "scheme", MarkdownDescription: "`http` or `ws`."},
			function.StringParameter{Name: "query", MarkdownDescription: "Query string, `\"\"` for none."},
		},
		Return: function.StringReturn{},
	}
}

func (f *endpointURLFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var (
		host, scheme, query string
		portNumber          *big.Float
		tls                 bool
	)
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &host, &portNumber, &tls, &scheme, &query))
	if resp.Error != nil {
		return
	}
	if strings.TrimSpace(host) == "" || strings.ContainsAny(host, " \t\r\n/?#@") {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf("host %q must be a host name or IP address, without spaces, '/', '?', '#' or '@'", host))
		return
	}
	port, ok := wholeNumber(portNumber, 1, 65535)
	if !ok {
		resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf("port %s is not a whole number from 1 to 65535", portNumber.Text('g', -1)))
		return
	}
	u, err := sandbox.ExposedPortEndpoint{Host: host, Port: int(port), TLS: tls, Query: query}.URLFor(scheme)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(3, err.Error())
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, u))
}

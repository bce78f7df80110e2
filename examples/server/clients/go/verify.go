// Command verify checks Keyward API keys from Go, through the reference server's verification
// endpoint, on the standard library only. Copy Verify into your service, or run it:
//
//	SERVICE_BASE_URL=http://127.0.0.1:3000 SERVICE_DEVELOPER_KEY=ak_... \
//	    go run verify.go [-project-id P] [-permission NAME] [-ip ADDRESS] ak_THE_KEY_TO_VERIFY
//
// It prints the answer as JSON, and exits 0 when the key is valid, 1 when it is refused, 2 when
// the verification could not be made. With KEYWARD_VERIFY_TOKEN set (a service token the
// server's operator configured) it sends that instead of the developer key.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// Request is what the key must pass: the key itself, and optionally its project, permissions,
// the address of the client that presented it, and the request's cost in credits.
type Request struct {
	Key         string   `json:"key"`
	ProjectID   string   `json:"project_id,omitempty"`
	Permissions []string `json:"permissions,omitempty"`
	Cost        *int     `json:"cost,omitempty"`
	IP          string   `json:"ip,omitempty"`
}

// RateLimit is what is left of the key's own rate limit after this request.
type RateLimit struct {
	Limit         int `json:"limit"`
	WindowSeconds int `json:"window_seconds"`
	Remaining     int `json:"remaining"`
	ResetSeconds  int `json:"reset_seconds"`
}

// Owner is whose key it is: a project.
type Owner struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Result is the verdict. Code is the refusal's error type ("key_invalid", "ip_not_allowed",
// ...), nil when the key is valid; the other fields are set for a valid key only.
type Result struct {
	Valid       bool                   `json:"valid"`
	Code        *string                `json:"code"`
	KeyID       *string                `json:"key_id"`
	Owner       *Owner                 `json:"owner"`
	Permissions []string               `json:"permissions"`
	Metadata    map[string]interface{} `json:"metadata"`
	Remaining   *int                   `json:"remaining"`
	ExpiresAt   *time.Time             `json:"expires_at"`
	RateLimit   *RateLimit             `json:"ratelimit"`
}

// Client calls one server with one credential: a developer key (keys of its own projects) or a
// service token (keys of any project).
type Client struct {
	BaseURL      string
	DeveloperKey string
	ServiceToken string
	HTTP         *http.Client
}

// Error means no verdict was made: the server's error answer (Status, Type) or no answer (Status 0).
type Error struct {
	Status  int
	Type    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%s, HTTP %d)", e.Message, e.Type, e.Status) }

// Verify asks the server whether the key passes the checks of an API key's guard. A refused key
// is a Result with Valid false, not an error.
func (c *Client) Verify(ctx context.Context, request Request) (*Result, error) {
	body, err := json.Marshal(request)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		strings.TrimRight(c.BaseURL, "/")+"/api/v1/keys/verify", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.ServiceToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.ServiceToken)
	} else {
		req.Header.Set("X-Developer-Key", c.DeveloperKey)
	}
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	response, err := client.Do(req)
	if err != nil {
		return nil, &Error{Message: "no answer: " + err.Error()}
	}
	defer response.Body.Close()
	if response.StatusCode != http.StatusOK {
		var failure struct {
			Detail []struct{ Msg, Type string } `json:"detail"`
		}
		problem := &Error{Status: response.StatusCode, Message: response.Status}
		if json.NewDecoder(response.Body).Decode(&failure) == nil && len(failure.Detail) > 0 {
			problem.Type, problem.Message = failure.Detail[0].Type, failure.Detail[0].Msg
		}
		return nil, problem
	}
	var result Result
	if err := json.NewDecoder(response.Body).Decode(&result); err != nil {
		return nil, err
	}
	return &result, nil
}

type permissions []string

func (p *permissions) String() string     { return strings.Join(*p, ",") }
func (p *permissions) Set(v string) error { *p = append(*p, v); return nil }

func main() {
	var request Request
	var wanted permissions
	flag.StringVar(&request.ProjectID, "project-id", "", "the project the key must belong to")
	flag.Var(&wanted, "permission", "a permission the key must carry (repeat for several)")
	flag.StringVar(&request.IP, "ip", "", "the address of the client that presented the key")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: verify [flags] KEY")
		os.Exit(2)
	}
	request.Key, request.Permissions = flag.Arg(0), wanted
	client := Client{
		BaseURL:      os.Getenv("SERVICE_BASE_URL"),
		DeveloperKey: os.Getenv("SERVICE_DEVELOPER_KEY"),
		ServiceToken: os.Getenv("KEYWARD_VERIFY_TOKEN"),
	}
	if client.BaseURL == "" {
		client.BaseURL = "http://127.0.0.1:3000"
	}
	if client.DeveloperKey == "" && client.ServiceToken == "" {
		fmt.Fprintln(os.Stderr, "Set SERVICE_DEVELOPER_KEY (or KEYWARD_VERIFY_TOKEN).")
		os.Exit(2)
	}
	result, err := client.Verify(context.Background(), request)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verification failed:", err)
		os.Exit(2)
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
	if !result.Valid {
		os.Exit(1)
	}
}

package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"mime"
	"net"
	"net/http"
	"strings"
)

// How a browser presents a token: it logs in once at /ui/login (a form,
// or /ui/login?token=T for a link), and the console sets a cookie holding
// a MAC of the token under a key made at start, never the token itself;
// the cookie is HttpOnly, SameSite=Strict and limited to /ui/. A program
// sends "Authorization: Bearer T" with each request instead. A console
// without tokens is open, but answers only requests addressed to a
// loopback host, so that a web page cannot reach it through a DNS name
// rebound to 127.0.0.1. The API's POSTs take only application/json, which
// a page of another site cannot send without the browser asking first.

// cookieName names the console's session cookie.
const cookieName = "mcp_bridge_console"

// auth checks the requests to the console.
type auth struct {
	tokens []string
	key    []byte // the cookies' MAC key, made at start: a restart logs everybody out
}

func newAuth(tokens []string) *auth {
	a := &auth{tokens: tokens, key: make([]byte, 32)}
	if _, err := rand.Read(a.key); err != nil {
		panic("console: no randomness for the cookie key: " + err.Error())
	}
	return a
}

// on reports whether the console asks for a token.
func (a *auth) on() bool { return len(a.tokens) > 0 }

// mac is the cookie of token.
func (a *auth) mac(token string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(token))
	return hex.EncodeToString(m.Sum(nil))
}

// valid reports whether token is one of the console's.
func (a *auth) valid(token string) bool {
	ok := false
	for _, t := range a.tokens {
		if subtle.ConstantTimeCompare([]byte(token), []byte(t)) == 1 {
			ok = true
		}
	}
	return ok && token != ""
}

// allowed says whether r may use the console, and why not.
func (a *auth) allowed(r *http.Request) (bool, string) {
	if !a.on() {
		if !loopbackHost(r.Host) {
			return false, "this console has no tokens and answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]), not " + r.Host
		}
		return true, ""
	}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		if a.valid(strings.TrimSpace(t)) {
			return true, ""
		}
		return false, "the bearer token is not one of the console's (mcp.tokens that name no agents)"
	}
	if c, err := r.Cookie(cookieName); err == nil {
		for _, t := range a.tokens {
			if subtle.ConstantTimeCompare([]byte(c.Value), []byte(a.mac(t))) == 1 {
				return true, ""
			}
		}
		return false, "the console's login has expired (the bridge restarted): log in again at /ui/login"
	}
	return false, "the console needs a token: log in at /ui/login, or send Authorization: Bearer TOKEN"
}

// page guards the console's pages: a browser without a login is sent to
// the login page.
func (a *auth) page(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, why := a.allowed(r); !ok {
			if a.on() {
				http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
				return
			}
			http.Error(w, why, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// api guards the console's API: 401 (or 403) with a JSON error, and a
// POST must be JSON.
func (a *auth) api(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, why := a.allowed(r); !ok {
			status := http.StatusForbidden
			if a.on() {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-bridge console"`)
				status = http.StatusUnauthorized
			}
			fail(w, status, "%s", why)
			return
		}
		if r.Method == http.MethodPost {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				fail(w, http.StatusUnsupportedMediaType, "the console's API takes application/json, not %q", r.Header.Get("Content-Type"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// loginPage serves the login form; /ui/login?token=T logs in at once, and
// a console without tokens needs no login.
func (a *auth) loginPage(form http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !a.on():
			http.Redirect(w, r, Path, http.StatusSeeOther)
		case r.URL.Query().Has("token"):
			a.login(w, r)
		default:
			form.ServeHTTP(w, r)
		}
	})
}

// login checks the token of the form (or of ?token=) and sets the
// console's cookie: back to the console, or to the form with failed=1.
func (a *auth) login(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		token = r.PostFormValue("token")
	}
	token = strings.TrimSpace(token)
	if !a.on() || !a.valid(token) {
		http.Redirect(w, r, "/ui/login?failed=1", http.StatusSeeOther)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: a.mac(token), Path: Path,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, Path, http.StatusSeeOther)
}

// logout clears the console's cookie.
func (a *auth) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Path, MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

// loopbackHost reports whether the Host of a request names this machine
// by a loopback name or address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

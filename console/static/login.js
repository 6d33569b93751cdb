// The login form says when the token given was not one of the console's.
if (new URLSearchParams(location.search).has("failed")) {
  document.getElementById("failed").hidden = false;
}

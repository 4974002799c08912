// What the console's sections share: saying a failure in words (a 403 names the role and what it
// may not do, since access is decided by the routes, not by which buttons the page shows), and
// reading a filter form into a query string.

import { session, APIError } from "/assets/api.js";

let signedOut = () => {};

/** The shell registers what a lapsed token (401) does: back to the sign-in form. */
export function onUnauthorized(handler) {
    signedOut = handler;
}

/** The role the signed-in token claims (the service decides; this is for the words only). */
export function role() {
    return session.claims?.role ?? "unknown";
}

export function showError(element, message) {
    element.textContent = message;
    element.hidden = false;
}

export function hideError(element) {
    element.textContent = "";
    element.hidden = true;
}

/**
 * Shows `failure` in `element`: `action` completes "this token's role may not …" for a 403
 * ("read the live dashboard"); a 401 signs out; anything else is the service's own message.
 */
export function reportFailure(failure, element, action) {
    if (failure instanceof APIError && failure.status === 401) {
        signedOut(`Please sign in again: ${failure.message}`);
        return;
    }
    if (failure instanceof APIError && failure.status === 403) {
        element.dataset.forbidden = "true";
        showError(element, `This token's role (${role()}) may not ${action}. The service said: ${failure.message}`);
        return;
    }
    delete element.dataset.forbidden;
    let message = failure instanceof APIError ? failure.message : "The service could not be reached; check your connection and try again.";
    if (failure instanceof APIError && failure.status === 404 && failure.code.startsWith("http_")) {
        message = `This build of the service has no such route (${failure.code}); ${message}`;
    }
    if (failure instanceof APIError && failure.retryAfter) message += ` (try again in ${failure.retryAfter} s)`;
    showError(element, message);
}

/**
 * The non-empty fields of `form` as a query string: a datetime-local field becomes ISO 8601 in
 * UTC, a checkbox "true" when ticked (and left out otherwise).
 */
export function queryOf(form) {
    const query = new URLSearchParams();
    for (const field of form.elements) {
        if (!field.name || field.disabled) continue;
        if (field.type === "checkbox") {
            if (field.checked) query.set(field.name, "true");
        } else if (field.type === "datetime-local") {
            if (field.value) query.set(field.name, new Date(field.value).toISOString().replace(/\.\d{3}Z$/, "Z"));
        } else if (field.value.trim()) {
            query.set(field.name, field.value.trim());
        }
    }
    return query;
}

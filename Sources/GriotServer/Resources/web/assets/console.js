// The operators' console (issue 37, item 1): sign in with a token, then the sections named by
// the address's hash (#dashboard, #turns, #turns/<id>, #replay/<id>, #prompts, #reviews, #audit).
// Each section is a module with show(argument) and hide(); this file only signs in and routes.
// Every text from the service or a model goes in as a text node (dom.js); nothing assigns HTML.

import { api, session, APIError } from "/assets/api.js";
import { $ } from "/assets/dom.js";
import { onUnauthorized, showError, hideError } from "/assets/console-common.js";
import { dashboard } from "/assets/console-dashboard.js";
import { turns } from "/assets/console-turns.js";
import { replay } from "/assets/console-replay.js";
import { prompts } from "/assets/console-prompts.js";
import { reviews } from "/assets/console-reviews.js";
import { audit } from "/assets/console-audit.js";

const SECTIONS = { dashboard, turns, replay, prompts, reviews, audit };
let current = null;

function showSignedIn() {
    const signedIn = Boolean(session.token);
    $("sign-in").hidden = signedIn;
    $("app").hidden = !signedIn;
    $("sign-out").hidden = !signedIn;
    $("who").hidden = !signedIn;
    if (!signedIn) return;
    const claims = session.claims;
    $("who").textContent = claims?.sub ? `Signed in as ${claims.sub}${claims.role ? ` (${claims.role})` : ""}` : "Signed in";
}

async function signIn(event) {
    event.preventDefault();
    const error = $("sign-in-error");
    hideError(error);
    const token = $("token").value.trim().replace(/^Bearer\s+/i, "");
    if (!token) return showError(error, "Paste your token first.");
    session.token = token;
    try {
        // Any answer but 401 means the service knows the token; a role the console's routes
        // refuse is told so in each section (403), in the routes' own words.
        await api.json("GET", "/api/ops/turns?limit=1");
    } catch (failure) {
        if (!(failure instanceof APIError) || failure.status === 401) {
            session.token = null;
            return showError(error, failure instanceof APIError
                ? `That token was not accepted: ${failure.message}`
                : "The service could not be reached; check your connection and try again.");
        }
    }
    $("token").value = "";
    showSignedIn();
    route(true);
}

function signOut(message) {
    current?.hide();
    current = null;
    session.token = null;
    showSignedIn();
    if (message) showError($("sign-in-error"), message);
    $("token").focus();
}

/** Shows the section the hash names (the dashboard when it names none). */
function route(moveFocus = false) {
    if (!session.token) return;
    const [name, ...rest] = decodeURIComponent(location.hash.replace(/^#/, "")).split("/");
    const key = SECTIONS[name] ? name : "dashboard";
    const section = SECTIONS[key];
    if (current && current !== section) current.hide();
    for (const id of Object.keys(SECTIONS)) {
        $(`view-${id}`).hidden = id !== key;
        const link = $(`nav-${id}`);
        if (id === key) link.setAttribute("aria-current", "page");
        else link.removeAttribute("aria-current");
    }
    current = section;
    document.body.dataset.view = key;
    section.show(rest.join("/") || null);
    if (moveFocus) $(`${key}-title`).focus();
}

function start() {
    onUnauthorized(signOut);
    $("sign-in-form").addEventListener("submit", signIn);
    $("sign-out").addEventListener("click", () => signOut());
    window.addEventListener("hashchange", () => route(true));
    // A click on the link of the section already shown changes no hash: it shows the section again.
    document.querySelector("nav.tabs").addEventListener("click", (event) => {
        const link = event.target.closest("a[href^='#']");
        if (link && link.getAttribute("href") === location.hash) route(true);
    });
    for (const section of Object.values(SECTIONS)) section.start?.();
    showSignedIn();
    if (session.token) route();
    else $("token").focus();
    document.body.dataset.ready = "true";
}

start();

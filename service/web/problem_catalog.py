"""What each problem ``code`` means: the pages behind the problems' ``type`` URIs.

Every problem+json answer carries ``"type": "/problems/<code>"`` (RFC 9457:
a URI reference, resolved against the request's). ``GET /problems/<code>``
serves the entry below; a test collects every code the code base can raise
and checks that it is here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from http import HTTPStatus


@dataclass(frozen=True, slots=True)
class ProblemType:
    code: str
    title: str
    description: str

    @property
    def type_uri(self) -> str:
        return f"/problems/{self.code}"


_ENTRIES: dict[str, tuple[str, str]] = {
    # -- the rules refuse an action (service.engine.errors.ErrorCode) ------
    "game_over": ("The game is over", "The game has ended (by play, a resign, an abort or a timeout); nothing more can be done but read it."),
    "game_waiting": ("The game waits for its second player", "Seat 1 has not joined yet: no action, resign or timeout claim until it does (seat 0 may abort)."),
    "no_deal_running": ("No deal is running", "Between deals; the next deal is dealt by the service, not by a player."),
    "not_your_turn": ("Not your turn", "The other seat is to move; wait for its move on the event feed."),
    "card_not_in_hand": ("Card not in hand", "The card played is not in the caller's hand (R2a)."),
    "must_follow_suit": ("You must follow suit", "Once the talon is closed or exhausted the follower must follow suit (R5a)."),
    "must_beat": ("You must beat the card led", "Following suit, the follower must play a higher card of that suit when holding one (R5a)."),
    "must_trump": ("You must trump", "Holding no card of the suit led, the follower must play a trump (R5a)."),
    "must_overtrump": ("You must overtrump", "A trump was led: the follower must play a higher trump when holding one (R5b)."),
    "must_lead_marriage_card": ("Lead the King or Queen of the marriage", "After declaring a marriage the leader must lead one of its two cards (R6c)."),
    "not_on_lead": ("Not on lead", "Exchanging, closing, declaring and claiming are for the leader before the lead card (R6, R7b)."),
    "exchange_not_allowed": ("The trump jack cannot be exchanged now", "Only the leader holding the trump jack, while the talon is open (R6a)."),
    "close_not_allowed": ("The talon cannot be closed now", "Only the leader, while the talon is open and not exhausted (R6b)."),
    "marriage_not_allowed": ("That marriage cannot be declared now", "The leader must hold the King and Queen of the suit, one declaration per lead (R6c)."),
    "claim_not_allowed": ("You cannot claim now", "A claim is allowed only on lead after winning the last trick or declaring a marriage (R7b)."),
    "accept_not_allowed": ("Nothing to accept", "accept_last_trick is for the winner of the last trick when the cards have run out (R8a)."),
    "must_claim_or_accept": ("Claim or accept the last trick", "The cards have run out: the last trick's winner must claim or accept (R8a)."),
    "abort_not_allowed": ("The game cannot be aborted now", "Only before the game's first action, and never against a bot: resign instead (RX2)."),
    "not_waiting": ("It is your turn", "Only the seat waiting for the other may claim a timed-out turn (RX3)."),
    "turn_not_timed_out": ("The turn has not timed out yet", "The seat to move still has time; retry after retry_after_seconds (RX3)."),
    "timeout_claims_off": ("This server has no turn timeout", "SCHNAPSEN_TURN_TIMEOUT_SECONDS is 0 here, so no timeout can be claimed."),
    "invalid_deck": ("Not a deck", "A deck is the 20 cards exactly once each, in the notation of docs/rules.md (R1a)."),
    "invalid_event": ("Corrupt event", "A stored event does not apply to the state before it."),
    # -- games, seats and tokens -------------------------------------------
    "game_not_found": ("No such game", "No game has this id."),
    "seat_taken": ("Seat 1 is taken", "Someone joined this game already; a second join is refused."),
    "invalid_invite": ("Invalid invite", "This invite does not open seat 1 of this game."),
    "invalid_token": ("Invalid or missing token", "The bearer token belongs to no seat of this game."),
    "token_required": ("A seat's token is needed", "Send 'Authorization: Bearer <token>' with the token of your seat."),
    "invalid_authorization": ("Malformed Authorization header", "Use 'Authorization: Bearer <token>'."),
    "invalid_action": ("Not an action", "The body is not one of the six player actions with its fields."),
    "unknown_bot_level": ("Unknown bot level", "The level is none of GET /v1/bot/levels."),
    "stale_version": ("The game has moved on", "expected_version (409) or If-Match (412) names an older version; read the view and decide again."),
    "conflicting_versions": ("Two versions given", "expected_version and If-Match disagree."),
    "invalid_if_match": ("Malformed If-Match", "If-Match takes the strong ETag of a view, for example \"12\"."),
    "precondition_failed": ("Precondition failed", "If-Match does not match the game's version (a weak W/ tag never matches)."),
    "version_out_of_range": ("No such version yet", "The version asked for is beyond the log's head."),
    "invalid_last_event_id": ("Malformed Last-Event-ID", "Last-Event-ID must be the version of an event."),
    "bot_turn_not_claimable": ("A bot's turn is not claimed", "The bot is to move: its move comes from the service's workers, which recover a lost one; a timeout claim (RX3) is only against a person. Wait for the move on the event feed."),
    "busy": ("The game changed too often", "Others kept appending while this request decided; retry."),
    "invalid_cursor": ("Not a cursor of this listing", "Pass the next_cursor of the previous page of GET /v1/games?client=me as it was."),
    # -- idempotency -------------------------------------------------------
    "invalid_idempotency_key": ("Malformed Idempotency-Key", "1 to 255 visible ASCII characters."),
    "idempotency_key_reused": ("Idempotency key reused", "This key was used with a different request by the same caller."),
    "idempotency_key_too_short": ("Idempotency-Key too short", "Without a client key or a seat token a key is remembered per address, which other devices may share: send at least 16 characters, a UUID."),
    # -- clients and limits ------------------------------------------------
    "client_key_required": ("A client key is needed", "Send your app's key as 'X-Client-Key: <key>' or 'Authorization: Bearer <key>'."),
    "invalid_client_key": ("Unknown client key", "No client app has this key."),
    "client_key_revoked": ("Client key revoked", "The operator revoked this key; ask for a new one."),
    "rate_limited": ("Too many requests", "A rate limit of this caller is used up; retry after Retry-After (RateLimit headers say which)."),
    "too_many_games": ("Too many games", "This caller created as many games this hour as it may."),
    "too_many_bot_moves": ("Too many bot moves", "This caller asked the bot-move service and for hints as often this minute as it may."),
    "too_many_decisions": ("Too many decisions at once", "This caller's bot moves and hints queued or running hold its share of the decision workers (think time and count); retry after Retry-After."),
    "too_many_jobs": ("Too many export and analysis jobs", "This caller started as many new export and analysis jobs this hour as it may; asking again for one already made costs nothing."),
    "queue_full": ("The job queue is full", "The exports queue holds as many waiting jobs as it may; retry after Retry-After."),
    "too_many_waiting": ("Too many waiting requests", "This server holds as many long-polls and streams as it may; retry shortly or poll without wait."),
    "too_many_waiting_from_caller": ("Too many waiting requests from this caller", "This caller (a client address, or a client app by its key) holds its share of a server's long-polls and streams; end one first, or poll without wait."),
    "too_many_waiting_on_game": ("Too many waiting requests on this game", "This game has as many long-polls and streams on a server as it may; retry shortly or poll without wait."),
    # -- bots, jobs and exports --------------------------------------------
    "impossible_position": ("Impossible position", "The position is not one a seat can see in a real deal; the field is named."),
    "job_not_found": ("No such job", "No job has this id, or its result has expired."),
    "export_not_found": ("No such export", "No export has this id, or it has expired."),
    "analysis_not_found": ("No analysis yet", "POST /v1/games/{id}/analysis first and wait for its job to finish."),
    "analysis_not_allowed": ("Not your decisions", "During a game a seat reads only its own analysis; the opponent's decisions open when the game is over."),
    "deal_not_finished": ("The deal is not over", "A deal being played is not analysed; ask again once it is finished."),
    "unknown_deal": ("No such deal", "The game has not dealt a deal with this number."),
    # -- request bodies ----------------------------------------------------
    "malformed_json": ("Malformed JSON", "The body is not valid UTF-8 JSON."),
    "malformed_body": ("Malformed body", "The body could not be read as announced (length or chunked framing)."),
    "body_timeout": ("The body came too slowly", "The request's whole body did not arrive within SCHNAPSEN_BODY_TIMEOUT_SECONDS of its head; nothing was done and the connection is closed. Send the body with the head."),
    "json_too_deep": ("JSON nested too deep", "Arrays and objects nest at most 32 deep."),
    "number_too_large": ("Number too large", "A number in the JSON has more than 64 characters."),
    "payload_too_large": ("Body too large", "The body is larger than SCHNAPSEN_MAX_BODY_BYTES."),
    "unsupported_media_type": ("Unsupported media type", "Send bodies as application/json."),
    "invalid_request": ("The request is not valid", "A field of the body or query does not match the schema; errors names it."),
    # -- HTTP in general ---------------------------------------------------
    "bad_request": ("Bad request", "The request is not valid HTTP or not valid for this endpoint."),
    "unauthorized": ("Unauthorized", "The request needs credentials it did not send."),
    "forbidden": ("Forbidden", "This connection may not make requests."),
    "not_found": ("Not found", "No resource at this URL."),
    "method_not_allowed": ("Method not allowed", "The URL exists, but not with this method; Allow lists the methods."),
    "not_acceptable": ("Not acceptable", "The server cannot answer in a type the Accept header allows."),
    "conflict": ("Conflict", "The request conflicts with the resource's state."),
    "too_many_requests": ("Too many requests", "Retry after Retry-After."),
    "too_many_connections": ("Too many connections from this address", "This address holds SCHNAPSEN_CONNECTIONS_PER_ADDRESS connections to this server process already; the new one is refused and closed. Send over the ones open, or retry after Retry-After."),
    "uri_too_long": ("Request line too long", "The request line is longer than 4,094 bytes."),
    "headers_too_large": ("Headers too large", "At most 100 header fields of at most 8,190 bytes each."),
    "unsupported_transfer_coding": ("Unsupported transfer coding", "Only the chunked transfer coding is supported."),
    "expectation_failed": ("Expectation failed", "Only 'Expect: 100-continue' is met."),
    "internal_error": ("Internal error", "The server failed; it has been logged. The answer never carries a traceback."),
    "service_unavailable": ("Service unavailable", "Retry after Retry-After."),
    "store_unavailable": ("Game store unavailable", "Redis did not answer in time; retry after Retry-After."),
    "not_ready": ("Not ready", "A dependency is missing; missing names the failed checks."),
    "problem_not_found": ("No such problem type", "No problem of this service has this code."),
}  # fmt: skip

CATALOG: dict[str, ProblemType] = {
    code: ProblemType(code, title, text) for code, (title, text) in _ENTRIES.items()
}

#: The error module answers an HTTP status without a name of its own as ``http_<status>``.
_HTTP_CODE = re.compile(r"http_([45][0-9]{2})")


def problem_type(code: str) -> ProblemType | None:
    """The entry of ``code``, or None for a code this service never answers."""
    entry = CATALOG.get(code)
    if entry is not None:
        return entry
    match = _HTTP_CODE.fullmatch(code)
    if match is None:
        return None
    try:
        status = HTTPStatus(int(match.group(1)))
    except ValueError:
        return None
    return ProblemType(code, status.phrase, status.description or status.phrase)

"""Every problem code of the service, each with the page ``GET /problems/<code>`` serves.

A refusal names its code as a member of ``ProblemCode``, never as a bare
string, so a code cannot be raised without a title and a description here:
the enum is the catalog. Its values are the codes clients see in the
``code`` member of a problem+json body (and in ``type``: ``/problems/<code>``),
so they never change; a ``StrEnum`` member is that string wherever a string
is expected (JSON, headers, comparisons).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class ProblemPage:
    """What a code means, as its page says it."""

    code: str
    title: str
    description: str

    @property
    def type_uri(self) -> str:
        return f"/problems/{self.code}"


class ProblemCode(StrEnum):
    """A problem's stable code; ``page`` is its title and description."""

    _title: str
    _description: str

    def __new__(cls, code: str, title: str, description: str) -> ProblemCode:
        member = str.__new__(cls, code)
        member._value_ = code
        member._title = title
        member._description = description
        return member

    @property
    def page(self) -> ProblemPage:
        return ProblemPage(self.value, self._title, self._description)

    # fmt: off
    # -- the rules refuse an action (service.engine.errors.ErrorCode) ----------
    GAME_OVER = "game_over", "The game is over", "The game has ended (by play, a resign, an abort or a timeout); nothing more can be done but read it."
    GAME_WAITING = "game_waiting", "The game waits for its second player", "Seat 1 has not joined yet: no action, resign or timeout claim until it does (seat 0 may abort)."
    NO_DEAL_RUNNING = "no_deal_running", "No deal is running", "Between deals; the next deal is dealt by the service, not by a player."
    NOT_YOUR_TURN = "not_your_turn", "Not your turn", "The other seat is to move; wait for its move on the event feed."
    CARD_NOT_IN_HAND = "card_not_in_hand", "Card not in hand", "The card played is not in the caller's hand (R2a)."
    MUST_FOLLOW_SUIT = "must_follow_suit", "You must follow suit", "Once the talon is closed or exhausted the follower must follow suit (R5a)."
    MUST_BEAT = "must_beat", "You must beat the card led", "Following suit, the follower must play a higher card of that suit when holding one (R5a)."
    MUST_TRUMP = "must_trump", "You must trump", "Holding no card of the suit led, the follower must play a trump (R5a)."
    MUST_OVERTRUMP = "must_overtrump", "You must overtrump", "A trump was led: the follower must play a higher trump when holding one (R5b)."
    MUST_LEAD_MARRIAGE_CARD = "must_lead_marriage_card", "Lead the King or Queen of the marriage", "After declaring a marriage the leader must lead one of its two cards (R6c)."
    NOT_ON_LEAD = "not_on_lead", "Not on lead", "Exchanging, closing, declaring and claiming are for the leader before the lead card (R6, R7b)."
    EXCHANGE_NOT_ALLOWED = "exchange_not_allowed", "The trump jack cannot be exchanged now", "Only the leader holding the trump jack, while the talon is open (R6a)."
    CLOSE_NOT_ALLOWED = "close_not_allowed", "The talon cannot be closed now", "Only the leader, while the talon is open and not exhausted (R6b)."
    MARRIAGE_NOT_ALLOWED = "marriage_not_allowed", "That marriage cannot be declared now", "The leader must hold the King and Queen of the suit, one declaration per lead (R6c)."
    CLAIM_NOT_ALLOWED = "claim_not_allowed", "You cannot claim now", "A claim is allowed only on lead after winning the last trick or declaring a marriage (R7b)."
    ACCEPT_NOT_ALLOWED = "accept_not_allowed", "Nothing to accept", "accept_last_trick is for the winner of the last trick when the cards have run out (R8a)."
    MUST_CLAIM_OR_ACCEPT = "must_claim_or_accept", "Claim or accept the last trick", "The cards have run out: the last trick's winner must claim or accept (R8a)."
    ABORT_NOT_ALLOWED = "abort_not_allowed", "The game cannot be aborted now", "Only before the game's first action, never against a bot (RX2), and in a rated game only while seat 1 is empty (RX6): resign instead."
    NOT_WAITING = "not_waiting", "It is your turn", "Only the seat waiting for the other may claim a timed-out turn (RX3)."
    TURN_NOT_TIMED_OUT = "turn_not_timed_out", "The turn has not timed out yet", "The seat to move still has time; retry after retry_after_seconds (RX3)."
    TIMEOUT_CLAIMS_OFF = "timeout_claims_off", "This server has no turn timeout", "SCHNAPSEN_TURN_TIMEOUT_SECONDS is 0 here, so no timeout can be claimed."
    INVALID_DECK = "invalid_deck", "Not a deck", "A deck is the 20 cards exactly once each, in the notation of docs/rules.md (R1a)."
    INVALID_EVENT = "invalid_event", "Corrupt event", "A stored event does not apply to the state before it."

    # -- games, seats and tokens -----------------------------------------------
    GAME_NOT_FOUND = "game_not_found", "No such game", "No game has this id."
    NO_LIVE_GAME = "no_live_game", "No game in play", "None of your app's games is being played now, so there is no featured game; GET /v1/games/live lists the games in play."
    SEAT_TAKEN = "seat_taken", "Seat 1 is taken", "Someone joined this game already; a second join is refused."
    INVALID_INVITE = "invalid_invite", "Invalid invite", "This invite does not open seat 1 of this game."
    INVALID_TOKEN = "invalid_token", "Invalid or missing token", "The bearer token belongs to no seat of this game."
    TOKEN_REQUIRED = "token_required", "A seat's token is needed", "Send 'Authorization: Bearer <token>' with the token of your seat."
    INVALID_AUTHORIZATION = "invalid_authorization", "Malformed Authorization header", "Use 'Authorization: Bearer <token>'."
    INVALID_ACTION = "invalid_action", "Not an action", "The body is not one of the six player actions with its fields."
    UNKNOWN_BOT_LEVEL = "unknown_bot_level", "Unknown bot level", "The level is none of GET /v1/bot/levels."
    STALE_VERSION = "stale_version", "The game has moved on", "expected_version (409) or If-Match (412) names an older version; read the view and decide again."
    CONFLICTING_VERSIONS = "conflicting_versions", "Two versions given", "expected_version and If-Match disagree."
    INVALID_IF_MATCH = "invalid_if_match", "Malformed If-Match", "If-Match takes the strong ETag of a view, for example \"12\"."
    PRECONDITION_FAILED = "precondition_failed", "Precondition failed", "If-Match does not match the game's version (a weak W/ tag never matches)."
    VERSION_OUT_OF_RANGE = "version_out_of_range", "No such version yet", "The version asked for is beyond the log's head."
    INVALID_LAST_EVENT_ID = "invalid_last_event_id", "Malformed Last-Event-ID", "Last-Event-ID must be the version of an event."
    BOT_TURN_NOT_CLAIMABLE = "bot_turn_not_claimable", "A bot's turn is not claimed", "The bot is to move: its move comes from the service's workers, which recover a lost one; a timeout claim (RX3) is only against a person. Wait for the move on the event feed."
    BUSY = "busy", "The game changed too often", "Others kept appending while this request decided; retry."
    INVALID_CURSOR = "invalid_cursor", "Not a cursor of this listing", "Pass the next_cursor of the previous page of the same listing (GET /v1/games?client=me, a player's ratings or games) as it was."

    # -- rematches (service.game.rematch) --------------------------------------
    GAME_NOT_FINISHED = "game_not_finished", "The game is not finished", "A rematch is offered, accepted or declined once the game is over; this one is still waiting or being played."
    REMATCH_NOT_ALLOWED = "rematch_not_allowed", "An aborted game has no rematch", "The game was called off before its first action (RX2): nothing was played to play again. Create a new game instead."
    OWN_REMATCH_OFFER = "own_rematch_offer", "Your own offer", "The other seat accepts or declines a rematch offer, not the seat that made it; wait for the answer with GET /v1/games/{id}/rematch?wait=S."
    NO_REMATCH_OFFER = "no_rematch_offer", "No open rematch offer", "There is no offer of the other seat to answer: none was made, it was declined, or it was accepted already (read the game's view, member rematch)."
    REMATCH_CLOSED = "rematch_closed", "The rematch window has closed", "A finished game takes rematch offers and answers while the service keeps it live (SCHNAPSEN_ARCHIVE_GRACE_SECONDS after its end); this game has moved to the archive since. Create a new game instead."

    # -- idempotency -----------------------------------------------------------
    INVALID_IDEMPOTENCY_KEY = "invalid_idempotency_key", "Malformed Idempotency-Key", "1 to 255 visible ASCII characters."
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused", "Idempotency key reused", "This key was used with a different request by the same caller."
    IDEMPOTENCY_KEY_TOO_SHORT = "idempotency_key_too_short", "Idempotency-Key too short", "Without a client key or a seat token a key is remembered per address, which other devices may share: send at least 16 characters, a UUID."

    # -- clients and limits ----------------------------------------------------
    CLIENT_KEY_REQUIRED = "client_key_required", "A client key is needed", "Send your app's key as 'X-Client-Key: <key>' or 'Authorization: Bearer <key>'."
    INVALID_CLIENT_KEY = "invalid_client_key", "Unknown client key", "No client app has this key."
    CLIENT_KEY_REVOKED = "client_key_revoked", "Client key revoked", "The operator revoked this key; ask for a new one."
    # -- players, seeks and ratings --------------------------------------------
    PLAYER_TOKEN_REQUIRED = "player_token_required", "A player's token is needed", "Send the player's token as 'Authorization: Bearer <token>' (the app's backend gets it from POST /v1/players)."
    INVALID_PLAYER_TOKEN = "invalid_player_token", "Unknown player token", "No player has this token: it was never given, or a newer registration of the player replaced it."
    PLAYER_REQUIRED = "player_required", "Players only", "A rated game is created and joined by players of the app, with their player tokens."
    RATED_DEALING = "rated_dealing", "A rated game is dealt by the server", "A rated game takes no seed, deck or first_dealer: the server shuffles every deal and draws the first dealer, so nobody knows a hand before it is dealt (RX4). Leave them out, or create a casual game."
    RATED_GAME_NO_HELP = "rated_game_no_help", "No help in a rated game", "The service's bots give no hints to a seat of a rated game, and analyse it only once it is over (RX5); hints are for casual games."
    GAME_OF_ANOTHER_APP = "game_of_another_app", "A game of another app", "A player joins only games created through its own app."
    PLAYER_NOT_FOUND = "player_not_found", "No such player", "Your app has no player with this id."
    TOO_MANY_PLAYERS = "too_many_players", "Too many players", "Your app has registered as many players as it may (SCHNAPSEN_PLAYERS_PER_CLIENT)."
    INVALID_NAME = "invalid_name", "Invalid display name", "A display name has 1 to 32 characters: letters, marks, numbers, punctuation and symbols, single spaces between words, no control or format characters, no markup (< > & \" ` [ ] { } \\), and a first character to see: not a combining mark, a Hangul filler or a braille blank. A character newer than the server's Unicode is kept."
    CHALLENGE_NOT_FOUND = "challenge_not_found", "No such challenge", "You made or received no challenge with this id; challenges are forgotten a day after they are made."
    CHALLENGE_SELF = "challenge_self", "You cannot challenge yourself", "Challenge another player of your app."
    CHALLENGE_CLOSED = "challenge_closed", "The challenge is closed", "The challenge was accepted, declined, cancelled or has expired, or it is not yours to answer so: only the challenged player accepts or declines, only the challenger cancels."
    TOO_MANY_CHALLENGES = "too_many_challenges", "Too many open challenges", "A player has at most 20 open challenges (wait for answers or cancel some), and makes at most SCHNAPSEN_CHALLENGE_RECORDS_PER_PLAYER (100) within SCHNAPSEN_CHALLENGE_RECORD_SECONDS (a day), whatever became of them."
    INVALID_WEBHOOK_URL = "invalid_webhook_url", "Invalid webhook URL", "A webhook's URL is http or https, with a host (a DNS name, an IPv4 address as four decimal numbers, or a bracketed IPv6 address), no user or password and no fragment, at most 2048 characters."
    WEBHOOK_ADDRESS_REFUSED = "webhook_address_refused", "Address refused", "Deliveries never go to loopback, private, link-local, metadata or other non-public addresses (unless the operator allows some: SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES)."
    WEBHOOK_NOT_FOUND = "webhook_not_found", "No such webhook", "Your app has no webhook endpoint with this id."
    TOO_MANY_WEBHOOKS = "too_many_webhooks", "Too many webhooks", "Your app has as many webhook endpoints as it may (SCHNAPSEN_WEBHOOKS_PER_CLIENT)."
    DELIVERY_NOT_FOUND = "delivery_not_found", "No such delivery", "The webhook has no delivery with this id; deliveries are kept three days."
    TOO_MANY_REDELIVERIES = "too_many_redeliveries", "Too many redeliveries", "Your app has as many redeliveries waiting or being sent as it may (SCHNAPSEN_WEBHOOK_REDELIVERIES_PER_APP), or as many deliveries waiting; ask again once they are through."
    SEEK_NOT_FOUND = "seek_not_found", "No such seek", "You have no seek with this id; seeks are forgotten an hour after they end."
    SEEK_EXISTS = "seek_exists", "You are seeking already", "A player waits on one seek at a time: wait on it, or cancel it first."
    SEEK_PAIRED = "seek_paired", "The seek is paired", "The seek was paired before it could be cancelled: its game waits for you."
    TOO_MANY_SEEKS = "too_many_seeks", "Too many seeks", "Your app's pool holds as many waiting seeks as it may; retry after Retry-After."
    TOURNAMENT_NOT_FOUND = "tournament_not_found", "No such tournament", "Your app has no tournament with this id."
    TOURNAMENT_FINISHED = "tournament_finished", "The tournament is over", "A finished tournament takes no entries and no withdrawals, nor does one whose last round is paired."
    TOO_MANY_TOURNAMENTS = "too_many_tournaments", "Too many tournaments", "Your app holds as many tournaments not finished as it may (100); create the next once one has ended."
    NOT_ENTERED = "not_entered", "Not in the tournament", "You have no entry in this tournament to withdraw."
    TOURNAMENTS_UNAVAILABLE = "tournaments_unavailable", "No tournaments here", "This server keeps no database of record (SCHNAPSEN_ARCHIVE_URL is not set), and tournaments last only there; its operator can give it one."
    RATE_LIMITED = "rate_limited", "Too many requests", "A rate limit of this caller is used up; retry after Retry-After (RateLimit headers say which)."
    TOO_MANY_GAMES = "too_many_games", "Too many games", "This caller created as many games this hour as it may."
    TOO_MANY_BOT_MOVES = "too_many_bot_moves", "Too many bot moves", "This caller asked the bot-move service and for hints as often this minute as it may."
    TOO_MANY_DECISIONS = "too_many_decisions", "Too many decisions at once", "This caller's bot moves and hints queued or running hold its share of the decision workers (think time and count); retry after Retry-After."
    TOO_MANY_JOBS = "too_many_jobs", "Too many export and analysis jobs", "This caller started as many new export and analysis jobs this hour as it may; asking again for one already made costs nothing."
    QUEUE_FULL = "queue_full", "The job queue is full", "The exports queue holds as many waiting jobs as it may; retry after Retry-After."
    TOO_MANY_WAITING = "too_many_waiting", "Too many waiting requests", "This server holds as many long-polls and streams as it may; retry shortly or poll without wait."
    TOO_MANY_WAITING_FROM_CALLER = "too_many_waiting_from_caller", "Too many waiting requests from this caller", "This caller (a client address, or a client app by its key) holds its share of a server's long-polls and streams; end one first, or poll without wait."
    TOO_MANY_WAITING_ON_GAME = "too_many_waiting_on_game", "Too many waiting requests on this game", "This game has as many long-polls and streams on a server as it may; retry shortly or poll without wait."

    # -- bots, jobs and exports ------------------------------------------------
    IMPOSSIBLE_POSITION = "impossible_position", "Impossible position", "The position is not one a seat can see in a real deal; the field is named."
    JOB_NOT_FOUND = "job_not_found", "No such job", "No job has this id, or its result has expired."
    EXPORT_NOT_FOUND = "export_not_found", "No such export", "No export has this id, or it has expired."
    ANALYSIS_NOT_FOUND = "analysis_not_found", "No analysis yet", "POST /v1/games/{id}/analysis first and wait for its job to finish."
    ANALYSIS_NOT_ALLOWED = "analysis_not_allowed", "Not your decisions", "During a game a seat reads only its own analysis; the opponent's decisions open when the game is over."
    DEAL_NOT_FINISHED = "deal_not_finished", "The deal is not over", "A deal being played is not analysed; ask again once it is finished."
    UNKNOWN_DEAL = "unknown_deal", "No such deal", "The game has not dealt a deal with this number."
    ARCHIVE_UNAVAILABLE = "archive_unavailable", "No archive of finished games", "This server keeps no archive of finished games (SCHNAPSEN_ARCHIVE_URL is not set), so it has no export of a client's games; its operator can give it one."

    # -- request bodies --------------------------------------------------------
    MALFORMED_JSON = "malformed_json", "Malformed JSON", "The body is not valid UTF-8 JSON."
    MALFORMED_BODY = "malformed_body", "Malformed body", "The body could not be read as announced (length or chunked framing)."
    BODY_TIMEOUT = "body_timeout", "The body came too slowly", "The request's whole body did not arrive within SCHNAPSEN_BODY_TIMEOUT_SECONDS of its head; nothing was done and the connection is closed. Send the body with the head."
    JSON_TOO_DEEP = "json_too_deep", "JSON nested too deep", "Arrays and objects nest at most 32 deep."
    NUMBER_TOO_LARGE = "number_too_large", "Number too large", "A number in the JSON has more than 64 characters."
    PAYLOAD_TOO_LARGE = "payload_too_large", "Body too large", "The body is larger than SCHNAPSEN_MAX_BODY_BYTES."
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type", "Unsupported media type", "Send bodies as application/json."
    INVALID_REQUEST = "invalid_request", "The request is not valid", "A field of the body or query does not match the schema; errors names it."

    # -- HTTP in general -------------------------------------------------------
    BAD_REQUEST = "bad_request", "Bad request", "The request is not valid HTTP or not valid for this endpoint."
    UNAUTHORIZED = "unauthorized", "Unauthorized", "The request needs credentials it did not send."
    FORBIDDEN = "forbidden", "Forbidden", "This connection may not make requests."
    NOT_FOUND = "not_found", "Not found", "No resource at this URL."
    METHOD_NOT_ALLOWED = "method_not_allowed", "Method not allowed", "The URL exists, but not with this method; Allow lists the methods."
    NOT_ACCEPTABLE = "not_acceptable", "Not acceptable", "The server cannot answer in a type the Accept header allows."
    CONFLICT = "conflict", "Conflict", "The request conflicts with the resource's state."
    TOO_MANY_REQUESTS = "too_many_requests", "Too many requests", "Retry after Retry-After."
    TOO_MANY_CONNECTIONS = "too_many_connections", "Too many connections from this address", "This address holds SCHNAPSEN_CONNECTIONS_PER_ADDRESS connections to this server process already; the new one is refused and closed. Send over the ones open, or retry after Retry-After."
    URI_TOO_LONG = "uri_too_long", "Request line too long", "The request line is longer than 4,094 bytes."
    HEADERS_TOO_LARGE = "headers_too_large", "Headers too large", "At most 100 header fields of at most 8,190 bytes each."
    UNSUPPORTED_TRANSFER_CODING = "unsupported_transfer_coding", "Unsupported transfer coding", "Only the chunked transfer coding is supported."
    EXPECTATION_FAILED = "expectation_failed", "Expectation failed", "Only 'Expect: 100-continue' is met."
    INTERNAL_ERROR = "internal_error", "Internal error", "The server failed; it has been logged. The answer never carries a traceback."
    SERVICE_UNAVAILABLE = "service_unavailable", "Service unavailable", "Retry after Retry-After."
    STORE_UNAVAILABLE = "store_unavailable", "Game store unavailable", "Redis, or the database of record, did not answer in time; retry after Retry-After."
    STORE_FULL = "store_full", "Game store full", "The game store reached its memory limit and takes no new writes: nothing of this request was written. Reading games still works; retry after Retry-After, once the operator has made room."
    NOT_READY = "not_ready", "Not ready", "A dependency is missing; missing names the failed checks."
    PROBLEM_NOT_FOUND = "problem_not_found", "No such problem type", "No problem of this service has this code."
    # fmt: on


__all__ = ["ProblemCode", "ProblemPage"]

// Generated from the content API's OpenAPI document (the one served at /openapi.json) by
// `npm run generate -w @muse/content-api`; do not edit. A test fails when it is out of date.

export interface paths {
    "/api/v1/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange a phone number and its code for a bearer token
         * @description On the first login of a number an account is created with the default permissions and
         *     `default_credit_quota` credits (server-config), granted through the credit ledger. The
         *     code is consumed by a successful login; after `code_max_attempts` wrong entries it is
         *     invalidated. Attempts are limited per number and client address together, and per client
         *     address, per hour (`login_attempts_per_phone_per_hour`, `login_attempts_per_ip_per_hour`),
         *     so wrong codes sent from elsewhere never lock the owner out. The token is a
         *     JWT (HS256) with the claims `sub`, `is_active`, `permission.is_admin`, `iat`, `exp`.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/verification-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Send a one-time login code by SMS or voice call
         * @description Makes a 6-digit code, valid for `code_ttl_seconds` (server-config, default 300) and for
         *     one login, and sends it through the first enabled provider able to deliver `code_type`
         *     (by ascending `priority`; when one fails the next is tried). A new code replaces the
         *     previous one. The same number may ask again only after `code_cooldown_seconds`
         *     (default 60) from the last send, whether that code was used, exhausted or withdrawn. A
         *     number may ask `codes_per_phone_per_day` times a day from one client address (five times
         *     that from all addresses together), and each address `codes_per_ip_per_day` times, so
         *     requests made from elsewhere cannot use up the owner's codes. Limits are kept in the
         *     database, so they hold across all API processes.
         */
        get: operations["requestVerificationCode"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List bundle resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to public; own and public need bundle:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listBundles"];
        put?: never;
        /**
         * Create a bundle
         * @description Administrators only (403 for others). The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createBundle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one bundle
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getBundle"];
        put?: never;
        post?: never;
        /**
         * Delete a bundle
         * @description Administrators only (403 for others).
         */
        delete: operations["deleteBundle"];
        options?: never;
        head?: never;
        /**
         * Change a bundle (including its visibility)
         * @description Administrators only (403 for others). Only the fields sent change.
         */
        patch: operations["updateBundle"];
        trace?: never;
    };
    "/api/v1/canvases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List canvas resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need canvas:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listCanvases"];
        put?: never;
        /**
         * Create a canvas
         * @description Needs canvas:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createCanvas"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/canvases/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one canvas
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getCanvas"];
        put?: never;
        post?: never;
        /**
         * Delete a canvas
         * @description Needs canvas:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteCanvas"];
        options?: never;
        head?: never;
        /**
         * Change a canvas (including its visibility)
         * @description Needs canvas:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateCanvas"];
        trace?: never;
    };
    "/api/v1/characters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List character resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need character:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listCharacters"];
        put?: never;
        /**
         * Create a character
         * @description Needs character:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createCharacter"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/characters/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one character
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getCharacter"];
        put?: never;
        post?: never;
        /**
         * Delete a character
         * @description Needs character:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteCharacter"];
        options?: never;
        head?: never;
        /**
         * Change a character (including its visibility)
         * @description Needs character:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateCharacter"];
        trace?: never;
    };
    "/api/v1/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List conversation resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need conversation:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listConversations"];
        put?: never;
        /**
         * Create a conversation
         * @description Needs conversation:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/conversations/{conversation_id}/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the conversation's WebSocket
         * @description A WebSocket upgrade (`Connection: Upgrade`, `Upgrade: websocket`); the frames are in
         *     /asyncapi.json. The token goes in the query, since browsers cannot set headers on a
         *     WebSocket. Everything known at the handshake is checked before the upgrade and refused
         *     with an HTTP status and an `Error` body (never `101`): the per-address and not-yet-admitted
         *     caps (429 `too_many_connections`, 503 `server_busy`), the token (401), the account (403),
         *     the conversation (404, the same for a missing and another user's private one), the
         *     account's sockets on this process (429 `too_many_sockets`), a process shutting down (503).
         *     Close codes (4403, 4404, 1001, 1009, 1011) are only for what happens after the upgrade.
         *     A socket that is let in receives `ready` first.
         */
        get: operations["openConversationSocket"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/conversations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one conversation
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getConversation"];
        put?: never;
        post?: never;
        /**
         * Delete a conversation
         * @description Needs conversation:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteConversation"];
        options?: never;
        head?: never;
        /**
         * Change a conversation (including its visibility)
         * @description Needs conversation:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateConversation"];
        trace?: never;
    };
    "/api/v1/conversations/{id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The conversation id. */
                id: string;
            };
            cookie?: never;
        };
        /**
         * List the messages of a conversation
         * @description Whoever may read the conversation may read its messages (another user's private conversation answers 404). A plain JSON array; use desc=false for chronological order.
         */
        get: operations["listConversationMessages"];
        put?: never;
        /**
         * Add a message to a conversation
         * @description The conversation's owner (needs conversation:update:own) or an administrator adds messages; another user's public conversation answers 403, a private one 404. The conversation's sockets receive it (see /asyncapi.json); a user message in a conversation whose character has a text generator starts the character's streamed reply.
         */
        post: operations["createConversationMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/favorites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List favorite resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need favorite:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listFavorites"];
        put?: never;
        /**
         * Create a favorite
         * @description Needs favorite:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createFavorite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/favorites/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one favorite
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getFavorite"];
        put?: never;
        post?: never;
        /**
         * Delete a favorite
         * @description Needs favorite:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteFavorite"];
        options?: never;
        head?: never;
        /**
         * Change a favorite (including its visibility)
         * @description Needs favorite:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateFavorite"];
        trace?: never;
    };
    "/api/v1/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List files */
        get: operations["listFiles"];
        put?: never;
        /**
         * Upload a file
         * @description A multipart/form-data body with one part `file` and optional fields `name` (default:
         *     the part's file name) and `visibility` (private by default). Above the server
         *     configuration's `max_upload_bytes` the answer is 413 and nothing is kept.
         */
        post: operations["uploadFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files/{file_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file_id: string;
            };
            cookie?: never;
        };
        /**
         * One file, with its generation status
         * @description The caller's own file, a public one, or any for administrators.
         */
        get: operations["getFile"];
        put?: never;
        post?: never;
        /** Delete a file and its content */
        delete: operations["deleteFile"];
        options?: never;
        head?: never;
        /** Rename a file or change its visibility */
        patch: operations["updateFile"];
        trace?: never;
    };
    "/api/v1/files/{file_id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The file's content, through a signed link
         * @description Public: the `expires` and `signature` of the record's `download_url` authorise the
         *     request, no token is needed. A wrong or expired signature answers 403; a genuine link
         *     to a file deleted since answers 404.
         */
        get: operations["downloadFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/{generation_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                generation_id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a generation (its owner or an administrator)
         * @description Ends a pending or processing task at once: the task and its unfinished files become
         *     `failed` with `error_message` "cancelled", the charge is refunded (once, whatever else
         *     happens meanwhile), and the upstream is asked to stop where its protocol allows
         *     (Replicate-style predictions are cancelled; a synchronous upstream call is abandoned).
         */
        post: operations["cancelGeneration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/images": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Generate images (cost base_cost × count) */
        post: operations["generateImages"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/schemas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The JSON Schema of a generator's request body */
        get: operations["getGenerationSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/texts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Generate a text (cost base_cost) */
        post: operations["generateTexts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generations/videos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Generate a video (cost base_cost per started 5 s of duration) */
        post: operations["generateVideos"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a generator (administrators) */
        post: operations["createGenerator"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generators/{generator_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                generator_id: string;
            };
            cookie?: never;
        };
        /**
         * One generator
         * @description Users see active generators; administrators see any, with `config`, `secret_names` and `parameters_schema`.
         */
        get: operations["getGenerator"];
        put?: never;
        post?: never;
        /**
         * Deactivate a generator (administrators)
         * @description The generator stops being listed and accepting tasks; it is kept, because past tasks refer to it. PATCH `is_active` back to true to reactivate it.
         */
        delete: operations["deactivateGenerator"];
        options?: never;
        head?: never;
        /**
         * Change a generator (administrators)
         * @description Only the fields sent change. `secrets` are merged (a null value removes one) and never returned.
         */
        patch: operations["updateGenerator"];
        trace?: never;
    };
    "/api/v1/generators/images": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Active image generators */
        get: operations["listImageGenerators"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generators/texts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Active text generators */
        get: operations["listTextGenerators"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/generators/videos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Active video generators */
        get: operations["listVideoGenerators"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invite-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invite_code resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need invite_code:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listInviteCodes"];
        put?: never;
        /**
         * Create a invite_code
         * @description Administrators only (403 for others). The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createInviteCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invite-codes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one invite_code
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getInviteCode"];
        put?: never;
        post?: never;
        /**
         * Delete a invite_code
         * @description Administrators only (403 for others).
         */
        delete: operations["deleteInviteCode"];
        options?: never;
        head?: never;
        /**
         * Change a invite_code (including its visibility)
         * @description Administrators only (403 for others). Only the fields sent change.
         */
        patch: operations["updateInviteCode"];
        trace?: never;
    };
    "/api/v1/invite-codes/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeem an invite code for credits
         * @description Grants the code's credits to the caller through the ledger (kind invite). Needs invite_redemption:create:own (a default; revoke it to stop a user redeeming). 404 for an unknown code; 409 when it expired, is used up, or the caller already redeemed it (`details.reason` says which). Concurrent redemptions never exceed max_uses. Each account may try 20 codes an hour (429 with Retry-After beyond).
         */
        post: operations["redeemInviteCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/node-groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List node_group resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need node_group:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listNodeGroups"];
        put?: never;
        /**
         * Create a node_group
         * @description Needs node_group:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createNodeGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/node-groups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one node_group
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getNodeGroup"];
        put?: never;
        post?: never;
        /**
         * Delete a node_group
         * @description Needs node_group:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteNodeGroup"];
        options?: never;
        head?: never;
        /**
         * Change a node_group (including its visibility)
         * @description Needs node_group:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateNodeGroup"];
        trace?: never;
    };
    "/api/v1/payment-api": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the payment-provider configuration */
        get: operations["getPaymentApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the payment-provider configuration */
        patch: operations["updatePaymentApi"];
        trace?: never;
    };
    "/api/v1/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List payment resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need payment:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listPayments"];
        put?: never;
        /**
         * Create a payment
         * @description Needs payment:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one payment
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getPayment"];
        put?: never;
        post?: never;
        /**
         * Delete a payment
         * @description Needs payment:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deletePayment"];
        options?: never;
        head?: never;
        /**
         * Change a payment (including its visibility)
         * @description Needs payment:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updatePayment"];
        trace?: never;
    };
    "/api/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List project resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need project:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listProjects"];
        put?: never;
        /**
         * Create a project
         * @description Needs project:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createProject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one project
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getProject"];
        put?: never;
        post?: never;
        /**
         * Delete a project
         * @description Needs project:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteProject"];
        options?: never;
        head?: never;
        /**
         * Change a project (including its visibility)
         * @description Needs project:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateProject"];
        trace?: never;
    };
    "/api/v1/server-config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the runtime configuration */
        get: operations["getServerConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the runtime configuration
         * @description Only the fields sent change; every API process uses the new values from its next request.
         */
        patch: operations["updateServerConfig"];
        trace?: never;
    };
    "/api/v1/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List skill resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need skill:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listSkills"];
        put?: never;
        /**
         * Create a skill
         * @description Needs skill:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one skill
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getSkill"];
        put?: never;
        post?: never;
        /**
         * Delete a skill
         * @description Needs skill:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteSkill"];
        options?: never;
        head?: never;
        /**
         * Change a skill (including its visibility)
         * @description Needs skill:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateSkill"];
        trace?: never;
    };
    "/api/v1/transaction-logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List transaction_log resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need transaction_log:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listTransactionLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transaction-logs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one transaction_log
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getTransactionLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/user-character-configs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List user_character_config resources
         * @description A page of a plain JSON array (`[]` past the end), sorted by `order` with ties broken by id. Scope defaults to own; own and public need user_character_config:read:<scope>; all is for administrators (403 otherwise).
         */
        get: operations["listUserCharacterConfigs"];
        put?: never;
        /**
         * Create a user_character_config
         * @description Needs user_character_config:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).
         */
        post: operations["createUserCharacterConfig"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/user-character-configs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * Read one user_character_config
         * @description The caller reads their own, any public one, or (administrators) any. A missing id and another user's private one answer the same 404.
         */
        get: operations["getUserCharacterConfig"];
        put?: never;
        post?: never;
        /**
         * Delete a user_character_config
         * @description Needs user_character_config:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404.
         */
        delete: operations["deleteUserCharacterConfig"];
        options?: never;
        head?: never;
        /**
         * Change a user_character_config (including its visibility)
         * @description Needs user_character_config:<operation>:own for the caller's own; administrators may change or delete any. Another user's public one answers 403, another user's private one 404. Only the fields sent change.
         */
        patch: operations["updateUserCharacterConfig"];
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List accounts
         * @description With `scope=all` (administrators only; 403 otherwise) every account; with `scope=own`
         *     (the default) the caller's own account. Accounts are never public, so `scope=public`
         *     is refused for non-administrators and empty for administrators.
         */
        get: operations["listUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** One account (the caller's own, or any for administrators) */
        get: operations["getUser"];
        put?: never;
        post?: never;
        /** Delete an account and everything it owns (administrators only) */
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        /**
         * Change any account (administrators only)
         * @description Bans (`is_active: false`) or unbans an account, edits its profile, and adjusts its
         *     credits. A banned account gets 403 on its next request, even with an unexpired token.
         *     All changes of one request apply together or not at all.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/users/{id}/permission": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Grant or revoke administrator rights and permission triples (administrators only)
         * @description Permissions are triples `resource:operation:scope`. A user's effective set is the
         *     defaults plus `grant`ed minus `revoke`d triples; `reset` returns a triple to its default.
         *     Administrator rights are read from the database on every request, so revoking them
         *     takes effect on the user's next request.
         */
        patch: operations["updateUserPermission"];
        trace?: never;
    };
    "/api/v1/users/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's account */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the caller's profile */
        patch: operations["updateMe"];
        trace?: never;
    };
    "/api/v1/users/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Account statistics (administrators only) */
        get: operations["getUserStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/verification-code-providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List code providers by priority
         * @description A page of the providers, by ascending `priority` (the order they are tried); the shared
         *     sorting parameters order providers of equal priority (with `desc=false` and the default
         *     `order`, exactly the order they are tried).
         */
        get: operations["listVerificationCodeProviders"];
        put?: never;
        /** Add a code provider */
        post: operations["createVerificationCodeProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/verification-code-providers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** One code provider */
        get: operations["getVerificationCodeProvider"];
        put?: never;
        post?: never;
        /** Remove a code provider */
        delete: operations["deleteVerificationCodeProvider"];
        options?: never;
        head?: never;
        /**
         * Change a code provider
         * @description `config` and `secrets` are merged into the stored ones (a secret set to null is removed); the result must still be complete for the type. The type cannot change.
         */
        patch: operations["updateVerificationCodeProvider"];
        trace?: never;
    };
    "/asyncapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The conversation sockets' AsyncAPI 3 document */
        get: operations["getAsyncApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness — the process is up */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness — the database and Temporal are reachable */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description 11-digit mainland China mobile number. */
        AuthPhoneNumber: string;
        /** @description A top-up package: credits for a price. Administrators manage bundles; they are public by default so every user can list them (the list defaults to scope=public); a private bundle is a draft only administrators see. */
        Bundle: {
            /** Format: date-time */
            created_at: string;
            /** @description Credits granted when paid. */
            credits: number;
            /** @description ISO 4217 code; default CNY. */
            currency: string;
            /** @description What the bundle offers. */
            description: string;
            /** Format: uuid */
            id: string;
            /** @description Whether new payments may be opened for it. */
            is_active: boolean;
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** @description Price in the smallest unit of the currency. */
            price_cents: number;
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        BundleCreate: {
            /** @description Credits granted when paid. */
            credits: number;
            /** @description ISO 4217 code; default CNY. */
            currency?: string;
            /** @description What the bundle offers. */
            description?: string;
            /** @description Whether new payments may be opened for it. */
            is_active?: boolean;
            /** @description Display name. */
            name: string;
            /** @description Price in the smallest unit of the currency. */
            price_cents: number;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        BundleUpdate: {
            /** @description Credits granted when paid. */
            credits?: number;
            /** @description ISO 4217 code; default CNY. */
            currency?: string;
            /** @description What the bundle offers. */
            description?: string;
            /** @description Whether new payments may be opened for it. */
            is_active?: boolean;
            /** @description Display name. */
            name?: string;
            /** @description Price in the smallest unit of the currency. */
            price_cents?: number;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        CancelledGeneration: {
            /** @enum {string} */
            error_message: "cancelled";
            file_ids: string[];
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "failed";
        };
        /** @description A node/edge document (a generation workflow laid out on a board) inside a project. */
        Canvas: {
            /** Format: date-time */
            created_at: string;
            /** @description The graph; replaced whole on update. */
            document: {
                /** @description Connections between nodes. */
                edges: {
                    id: string;
                    /** @description Id of the source node. */
                    source: string;
                    source_handle?: string;
                    /** @description Id of the target node. */
                    target: string;
                    target_handle?: string;
                }[];
                /** @description The nodes of the graph. */
                nodes: {
                    /** @description Node-specific settings and results (e.g. a prompt, a file id). */
                    data?: Record<string, unknown>;
                    id: string;
                    position?: {
                        x: number;
                        y: number;
                    };
                    /** @description Node kind, e.g. prompt, image, video, text, character. */
                    type: string;
                }[];
                viewport?: {
                    x?: number;
                    y?: number;
                    zoom?: number;
                };
            };
            /** Format: uuid */
            id: string;
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /**
             * Format: uuid
             * @description The project it belongs to; one the caller may read.
             */
            project_id: string;
            /**
             * Format: uuid
             * @description Preview image. A file the caller may read (their own or a public one); null clears it.
             */
            thumbnail_file_id: string | null;
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        CanvasCreate: {
            /** @description The graph; replaced whole on update. */
            document?: {
                /** @description Connections between nodes. */
                edges: {
                    id: string;
                    /** @description Id of the source node. */
                    source: string;
                    source_handle?: string;
                    /** @description Id of the target node. */
                    target: string;
                    target_handle?: string;
                }[];
                /** @description The nodes of the graph. */
                nodes: {
                    /** @description Node-specific settings and results (e.g. a prompt, a file id). */
                    data?: Record<string, unknown>;
                    id: string;
                    position?: {
                        x: number;
                        y: number;
                    };
                    /** @description Node kind, e.g. prompt, image, video, text, character. */
                    type: string;
                }[];
                viewport?: {
                    x?: number;
                    y?: number;
                    zoom?: number;
                };
            };
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The project it belongs to; one the caller may read.
             */
            project_id: string;
            /**
             * Format: uuid
             * @description Preview image. A file the caller may read (their own or a public one); null clears it.
             */
            thumbnail_file_id?: string | null;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        CanvasUpdate: {
            /** @description The graph; replaced whole on update. */
            document?: {
                /** @description Connections between nodes. */
                edges: {
                    id: string;
                    /** @description Id of the source node. */
                    source: string;
                    source_handle?: string;
                    /** @description Id of the target node. */
                    target: string;
                    target_handle?: string;
                }[];
                /** @description The nodes of the graph. */
                nodes: {
                    /** @description Node-specific settings and results (e.g. a prompt, a file id). */
                    data?: Record<string, unknown>;
                    id: string;
                    position?: {
                        x: number;
                        y: number;
                    };
                    /** @description Node kind, e.g. prompt, image, video, text, character. */
                    type: string;
                }[];
                viewport?: {
                    x?: number;
                    y?: number;
                    zoom?: number;
                };
            };
            /** @description Display name. */
            name?: string;
            /**
             * Format: uuid
             * @description The project it belongs to; one the caller may read.
             */
            project_id?: string;
            /**
             * Format: uuid
             * @description Preview image. A file the caller may read (their own or a public one); null clears it.
             */
            thumbnail_file_id?: string | null;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        /** @description An AI character: its persona (system prompt), how it greets, how it looks, and what answers for it. */
        Character: {
            /**
             * Format: uuid
             * @description Avatar image. A file the caller may read (their own or a public one); null clears it.
             */
            avatar_file_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description Short public description shown in listings. */
            description: string;
            /**
             * Format: uuid
             * @description The text generator that writes the character's replies (builtin or openai). With one, each user message in a conversation with the character starts a reply, charged to the message's author at the generator's base_cost and streamed over the conversation's channel. 404 for an unknown or inactive one.
             */
            generator_id: string | null;
            /** @description The first message the character sends in a new conversation. */
            greeting: string;
            /** Format: uuid */
            id: string;
            /** @description The character's name. */
            name: string;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** @description The system prompt that defines how the character behaves and speaks. */
            persona: string;
            /** @description Free-form labels for search and grouping. */
            tags: string[];
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        CharacterCreate: {
            /**
             * Format: uuid
             * @description Avatar image. A file the caller may read (their own or a public one); null clears it.
             */
            avatar_file_id?: string | null;
            /** @description Short public description shown in listings. */
            description?: string;
            /**
             * Format: uuid
             * @description The text generator that writes the character's replies (builtin or openai). With one, each user message in a conversation with the character starts a reply, charged to the message's author at the generator's base_cost and streamed over the conversation's channel. 404 for an unknown or inactive one.
             */
            generator_id?: string | null;
            /** @description The first message the character sends in a new conversation. */
            greeting?: string;
            /** @description The character's name. */
            name: string;
            /** @description The system prompt that defines how the character behaves and speaks. */
            persona?: string;
            /** @description Free-form labels for search and grouping. */
            tags?: string[];
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        CharacterUpdate: {
            /**
             * Format: uuid
             * @description Avatar image. A file the caller may read (their own or a public one); null clears it.
             */
            avatar_file_id?: string | null;
            /** @description Short public description shown in listings. */
            description?: string;
            /**
             * Format: uuid
             * @description The text generator that writes the character's replies (builtin or openai). With one, each user message in a conversation with the character starts a reply, charged to the message's author at the generator's base_cost and streamed over the conversation's channel. 404 for an unknown or inactive one.
             */
            generator_id?: string | null;
            /** @description The first message the character sends in a new conversation. */
            greeting?: string;
            /** @description The character's name. */
            name?: string;
            /** @description The system prompt that defines how the character behaves and speaks. */
            persona?: string;
            /** @description Free-form labels for search and grouping. */
            tags?: string[];
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        /** @description The client's idempotency key for a message: the same author sending the same client_id to the same conversation again gets the stored message back, and nothing is stored twice. */
        ClientMessageId: string;
        CodeProvider: {
            /** @description What this provider can deliver. */
            code_types: ("sms" | "voice")[];
            /** @description The non-secret settings of the type, defaults filled in. */
            config: Record<string, unknown>;
            /** Format: date-time */
            created_at: string;
            enabled: boolean;
            /** Format: uuid */
            id: string;
            name: string;
            /** @description Lower values are tried first. */
            priority: number;
            /** @description Names of the secrets that are set. Secret values are write-only and never returned. */
            secrets_set: string[];
            type: components["schemas"]["CodeProviderType"];
            /** Format: date-time */
            updated_at: string;
        };
        CodeProviderCreate: {
            /** @description See `CodeProviderType` for the fields of each type. */
            config?: Record<string, unknown>;
            /** @default true */
            enabled?: boolean;
            name: string;
            /** @default 100 */
            priority?: number;
            /** @description Write-only secrets of the type (see `CodeProviderType`). */
            secrets?: {
                [key: string]: string;
            };
            type: components["schemas"]["CodeProviderType"];
        };
        /**
         * @description - `aliyun_sms`: Aliyun SendSms. config: `access_key_id`, `sign_name`, `template_code`, optional `template_param_name` (default `code`), `region_id` (default `cn-hangzhou`), `endpoint` (default `https://dysmsapi.aliyuncs.com/`). secrets: `access_key_secret`.
         *     - `aliyun_voice`: Aliyun SingleCallByTts. config: `access_key_id`, `tts_code`, optional `called_show_number`, `template_param_name`, `region_id`, `endpoint` (default `https://dyvmsapi.aliyuncs.com/`). secrets: `access_key_secret`.
         *     - `tencent_sms`: Tencent Cloud SendSms (TC3-HMAC-SHA256). config: `secret_id`, `sdk_app_id`, `sign_name`, `template_id`, optional `region` (default `ap-guangzhou`), `endpoint` (default `https://sms.tencentcloudapi.com/`). secrets: `secret_key`.
         *     - `tencent_voice`: Tencent Cloud SendTtsVoice. config: `secret_id`, `voice_sdk_app_id`, `template_id`, optional `play_times` (1–3, default 2), `region`, `endpoint` (default `https://vms.tencentcloudapi.com/`). secrets: `secret_key`.
         *     - `webhook`: POSTs `{phone, code, code_type}` as JSON to `config.url` (HTTPS; plain HTTP only to localhost) with headers `X-Muse-Timestamp` (Unix seconds) and `X-Muse-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` under `secrets.signing_secret` (at least 16 characters). Any 2xx answer is success. Delivers sms and voice codes.
         *     - `log`: development only; writes the code to the server log. No config, no secrets. Refused with 422 when the server runs with `NODE_ENV=production`, where one stored earlier never delivers.
         * @enum {string}
         */
        CodeProviderType: "aliyun_sms" | "aliyun_voice" | "tencent_sms" | "tencent_voice" | "webhook" | "log";
        CodeProviderUpdate: {
            config?: Record<string, unknown>;
            enabled?: boolean;
            name?: string;
            priority?: number;
            secrets?: {
                [key: string]: string | null;
            };
        };
        /** @description A chat, usually with a character; its messages are under /conversations/{id}/messages. */
        Conversation: {
            /**
             * Format: uuid
             * @description The character spoken to; one the caller may read.
             */
            character_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            id: string;
            /**
             * Format: date-time
             * @description When the latest message was added.
             */
            last_message_at: string | null;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** @description Title shown in the conversation list. */
            title: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        ConversationCreate: {
            /**
             * Format: uuid
             * @description The character spoken to; one the caller may read.
             */
            character_id?: string | null;
            /** @description Title shown in the conversation list. */
            title?: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        ConversationMessage: {
            /**
             * Format: uuid
             * @description The user who added it.
             */
            author_id: string | null;
            /** @description The sender's idempotency key, if it sent one. */
            client_id: components["schemas"]["ClientMessageId"] | null;
            content: string;
            /** Format: uuid */
            conversation_id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description For a character's reply: the message it answers.
             */
            reply_to_id: string | null;
            /**
             * @description Who speaks: the user, the character, or a system note.
             * @enum {string}
             */
            role: "user" | "assistant" | "system";
            /** @description Its place in the conversation: 1, 2, 3... in the order messages were stored. */
            seq: number;
            /** Format: date-time */
            updated_at: string;
        };
        ConversationUpdate: {
            /** @description Title shown in the conversation list. */
            title?: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        Error: {
            /** @description Stable machine-readable error code, e.g. `not_found`, `validation_error`. */
            code: string;
            /** @description More about the error, e.g. the failing fields of a validation error. */
            details?: unknown;
            message: string;
        };
        /** @description A bookmark of another resource (own or public). Creating one checks the caller may read the target (404 otherwise); a favorite stays when its target is deleted or made private, and reading the target then answers 404. */
        Favorite: {
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            id: string;
            /** @description Why it was saved. */
            note: string;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /**
             * Format: uuid
             * @description The id of the resource; one the caller may read.
             */
            target_id: string;
            /**
             * @description The kind of resource.
             * @enum {string}
             */
            target_type: "character" | "conversation" | "project" | "canvas" | "file" | "skill" | "node_group";
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        FavoriteCreate: {
            /** @description Why it was saved. */
            note?: string;
            /**
             * Format: uuid
             * @description The id of the resource; one the caller may read.
             */
            target_id: string;
            /**
             * @description The kind of resource.
             * @enum {string}
             */
            target_type: "character" | "conversation" | "project" | "canvas" | "file" | "skill" | "node_group";
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        FavoriteUpdate: {
            /** @description Why it was saved. */
            note?: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        File: {
            content_type: string;
            /** Format: date-time */
            created_at: string;
            /** @description Signed, expiring link to the content; null until completed. Absolute, on the server's configured public URL (MUSE_PUBLIC_URL); a server without one answers an absolute link only to loopback callers, and to any other caller a path relative to the origin it called (resolve it against the API's base URL). */
            download_url: string | null;
            /** @description Why the generation failed (says "timed out" or "rate limited" when the upstream did). */
            error_message: string | null;
            /**
             * Format: uuid
             * @description The generation task that makes this file.
             */
            generation_id?: string | null;
            /** Format: uuid */
            id: string;
            name: string;
            /** Format: uuid */
            owner_id: string;
            /** @description Bytes; 0 until the content exists. */
            size: number;
            /** @enum {string} */
            source: "upload" | "generation";
            /**
             * @description pending: queued; processing: being generated; completed: content available; failed: see error_message (the task was refunded).
             * @enum {string}
             */
            status: "pending" | "processing" | "completed" | "failed";
            /** Format: date-time */
            updated_at: string;
            /** @enum {string} */
            visibility: "private" | "public";
        };
        GenerationResponse: {
            file_ids: string[];
            /**
             * @description Always pending; follow the files for progress.
             * @enum {string}
             */
            status: "pending";
        };
        Generator: {
            /** @description Credits per unit of work (see the tag's cost rules). */
            base_cost: number;
            /** Format: date-time */
            created_at?: string;
            description: string;
            /** Format: uuid */
            id: string;
            is_active: boolean;
            /** @enum {string} */
            kind: "image" | "video" | "text";
            name: string;
            /**
             * @description The upstream adapter: builtin (offline), openai (OpenAI-compatible), replicate (submit-then-poll).
             * @enum {string}
             */
            type: "builtin" | "openai" | "replicate";
            /** Format: date-time */
            updated_at?: string;
        };
        GeneratorAdmin: components["schemas"]["Generator"] & {
            config?: components["schemas"]["GeneratorConfig"];
            parameters_schema?: Record<string, unknown>;
            /** @description Names of the stored secrets; their values are never returned. */
            secret_names?: string[];
        };
        /**
         * @description Adapter settings. `base_url` (upstream root, required for openai and replicate), `model`,
         *     `version` (replicate), `response_format` (openai images: b64_json or url). Execution:
         *     `request_timeout_seconds` (one upstream request, default 60), `max_attempts` (per upstream
         *     step, default 4), `poll_interval_seconds` (default 2), `timeout_seconds` (whole task,
         *     default 900), `max_result_bytes` (largest result file taken from an upstream, default
         *     512 MiB; a larger one fails the task, which is refunded), `delay_ms` (builtin: simulated work).
         */
        GeneratorConfig: {
            [key: string]: unknown;
        };
        GeneratorInput: {
            base_cost: number;
            config?: components["schemas"]["GeneratorConfig"];
            description?: string;
            is_active?: boolean;
            /** @enum {string} */
            kind: "image" | "video" | "text";
            name: string;
            /** @description JSON Schema of the request body; default: the generic fields of the kind. */
            parameters_schema?: Record<string, unknown>;
            /** @description Write-only, e.g. `{"api_key": "..."}`, sent as a bearer token upstream. */
            secrets?: {
                [key: string]: string | null;
            };
            /** @enum {string} */
            type: "builtin" | "openai" | "replicate";
        };
        GeneratorPatch: {
            base_cost?: number;
            config?: components["schemas"]["GeneratorConfig"];
            description?: string;
            is_active?: boolean;
            /** @enum {string} */
            kind?: "image" | "video" | "text";
            name?: string;
            parameters_schema?: Record<string, unknown>;
            secrets?: {
                [key: string]: string | null;
            };
            /** @enum {string} */
            type?: "builtin" | "openai" | "replicate";
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        /** @description The generic fields; the generator's own schema (GET /api/v1/generations/schemas) is authoritative and is checked next (422 with the failing paths). */
        ImageGenerationRequest: {
            /** @description <w>:<h>, e.g. 16:9 */
            aspect_ratio?: string;
            /** @description Number of images, 1 to 10 whatever the generator schema allows (422 naming /count otherwise); each costs base_cost. */
            count?: number;
            /** Format: uuid */
            generator_id: string;
            prompt?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A code that grants credits when redeemed (POST /invite-codes/redeem), at most once per user, at most max_uses times in total and not after expires_at. Administrators manage codes; users redeem codes they were given. */
        InviteCode: {
            /** @description What users type; 4 to 64 letters, digits, - or _. */
            code: string;
            /** Format: date-time */
            created_at: string;
            /** @description Credits granted per redemption. */
            credits: number;
            /** @description Who the code is for. */
            description: string;
            /**
             * Format: date-time
             * @description No redemption after this instant; null never expires.
             */
            expires_at: string | null;
            /** Format: uuid */
            id: string;
            /** @description How many users may redeem it in total. */
            max_uses: number;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** Format: date-time */
            updated_at: string;
            /** @description How many users redeemed it so far. */
            used_count: number;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        InviteCodeCreate: {
            /** @description What users type; 4 to 64 letters, digits, - or _. */
            code: string;
            /** @description Credits granted per redemption. */
            credits: number;
            /** @description Who the code is for. */
            description?: string;
            /**
             * Format: date-time
             * @description No redemption after this instant; null never expires.
             */
            expires_at?: string | null;
            /** @description How many users may redeem it in total. */
            max_uses: number;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        InviteCodeUpdate: {
            /** @description Credits granted per redemption. */
            credits?: number;
            /** @description Who the code is for. */
            description?: string;
            /**
             * Format: date-time
             * @description No redemption after this instant; null never expires.
             */
            expires_at?: string | null;
            /** @description How many users may redeem it in total. */
            max_uses?: number;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        InviteRedemption: {
            /** @description The caller's balance afterwards. */
            balance: number;
            /** Format: date-time */
            created_at: string;
            /** @description Credits granted. */
            credits: number;
            /** Format: uuid */
            invite_code_id: string;
            /**
             * Format: uuid
             * @description The ledger entry of the grant.
             */
            transaction_log_id: string;
        };
        /** @description A reusable group of canvas nodes and their edges, to drop into any canvas. */
        NodeGroup: {
            /** Format: date-time */
            created_at: string;
            /** @description What the group does. */
            description: string;
            /** @description Connections between nodes. */
            edges: {
                id: string;
                /** @description Id of the source node. */
                source: string;
                source_handle?: string;
                /** @description Id of the target node. */
                target: string;
                target_handle?: string;
            }[];
            /** Format: uuid */
            id: string;
            /** @description Display name. */
            name: string;
            /** @description The nodes of the graph. */
            nodes: {
                /** @description Node-specific settings and results (e.g. a prompt, a file id). */
                data?: Record<string, unknown>;
                id: string;
                position?: {
                    x: number;
                    y: number;
                };
                /** @description Node kind, e.g. prompt, image, video, text, character. */
                type: string;
            }[];
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        NodeGroupCreate: {
            /** @description What the group does. */
            description?: string;
            /** @description Connections between nodes. */
            edges?: {
                id: string;
                /** @description Id of the source node. */
                source: string;
                source_handle?: string;
                /** @description Id of the target node. */
                target: string;
                target_handle?: string;
            }[];
            /** @description Display name. */
            name: string;
            /** @description The nodes of the graph. */
            nodes?: {
                /** @description Node-specific settings and results (e.g. a prompt, a file id). */
                data?: Record<string, unknown>;
                id: string;
                position?: {
                    x: number;
                    y: number;
                };
                /** @description Node kind, e.g. prompt, image, video, text, character. */
                type: string;
            }[];
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        NodeGroupUpdate: {
            /** @description What the group does. */
            description?: string;
            /** @description Connections between nodes. */
            edges?: {
                id: string;
                /** @description Id of the source node. */
                source: string;
                source_handle?: string;
                /** @description Id of the target node. */
                target: string;
                target_handle?: string;
            }[];
            /** @description Display name. */
            name?: string;
            /** @description The nodes of the graph. */
            nodes?: {
                /** @description Node-specific settings and results (e.g. a prompt, a file id). */
                data?: Record<string, unknown>;
                id: string;
                position?: {
                    x: number;
                    y: number;
                };
                /** @description Node kind, e.g. prompt, image, video, text, character. */
                type: string;
            }[];
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        /** @description A top-up transaction for a bundle. Users create pending payments and read their own; administrators settle them (status paid grants the credits once, via a ledger entry with reference `payment:<id>`; failed and cancelled grant nothing). Only a pending payment may change status (409 otherwise). */
        Payment: {
            /**
             * Format: uuid
             * @description The bundle bought; an active one the caller may read.
             */
            bundle_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description Credits granted when paid (copied from the bundle). */
            credits: number;
            currency: string;
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** Format: date-time */
            paid_at: string | null;
            /** @description Amount to pay (copied from the bundle). */
            price_cents: number;
            /** @description The payment provider's transaction id. */
            provider_reference: string | null;
            /**
             * @description pending until an administrator settles it.
             * @enum {string}
             */
            status: "pending" | "paid" | "failed" | "cancelled";
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        PaymentApi: components["schemas"]["PaymentApiSettings"] & {
            /** @description Names of the secrets that are set (e.g. `private_key`, `api_key`, `webhook_secret`); values are write-only. */
            secrets_set: string[];
            /** Format: date-time */
            updated_at: string;
        };
        PaymentApiSettings: {
            /**
             * Format: uri
             * @description The provider's API address (defaults to the provider's production address when unset).
             */
            api_base_url?: string;
            app_id?: string;
            /** @description ISO 4217 code, e.g. CNY. */
            currency?: string;
            /** @description Whether top-ups are offered (default false). */
            enabled?: boolean;
            merchant_id?: string;
            /**
             * Format: uri
             * @description Where the provider sends payment notifications.
             */
            notify_url?: string;
            /** @description The provider's public key for verifying its notifications (not a secret). */
            platform_public_key?: string;
            /**
             * @description Which payment provider (default `none`).
             * @enum {string}
             */
            provider?: "none" | "alipay" | "wechat_pay" | "stripe" | "custom";
            /**
             * Format: uri
             * @description Where the payer returns after paying.
             */
            return_url?: string;
        };
        PaymentApiUpdate: {
            /** Format: uri */
            api_base_url?: string;
            app_id?: string;
            currency?: string;
            enabled?: boolean;
            merchant_id?: string;
            /** Format: uri */
            notify_url?: string;
            platform_public_key?: string;
            /** @enum {string} */
            provider?: "none" | "alipay" | "wechat_pay" | "stripe" | "custom";
            /** Format: uri */
            return_url?: string;
            /** @description Secrets to set; a secret set to null is removed. Never returned. */
            secrets?: {
                [key: string]: string | null;
            };
        };
        PaymentCreate: {
            /**
             * Format: uuid
             * @description The bundle bought; an active one the caller may read.
             */
            bundle_id: string | null;
        };
        PaymentUpdate: {
            /** @description The payment provider's transaction id. Administrators only. */
            provider_reference?: string | null;
            /**
             * @description pending until an administrator settles it. Administrators only.
             * @enum {string}
             */
            status?: "pending" | "paid" | "failed" | "cancelled";
        };
        /** @description A workspace that groups canvases. */
        Project: {
            /**
             * Format: uuid
             * @description Cover image. A file the caller may read (their own or a public one); null clears it.
             */
            cover_file_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description What the project is about. */
            description: string;
            /** Format: uuid */
            id: string;
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        ProjectCreate: {
            /**
             * Format: uuid
             * @description Cover image. A file the caller may read (their own or a public one); null clears it.
             */
            cover_file_id?: string | null;
            /** @description What the project is about. */
            description?: string;
            /** @description Display name. */
            name: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        ProjectUpdate: {
            /**
             * Format: uuid
             * @description Cover image. A file the caller may read (their own or a public one); null clears it.
             */
            cover_file_id?: string | null;
            /** @description What the project is about. */
            description?: string;
            /** @description Display name. */
            name?: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        Readiness: {
            checks: {
                [key: string]: {
                    ok: boolean;
                    reason?: string;
                };
            };
            /** @enum {string} */
            status: "ready" | "unavailable";
        };
        ServerConfig: components["schemas"]["ServerConfigUpdate"] & Record<string, unknown>;
        ServerConfigUpdate: {
            /** @description Seconds before the same number may request another code (default 60). */
            code_cooldown_seconds?: number;
            /** @description Wrong entries after which a code is invalidated (default 5). */
            code_max_attempts?: number;
            /** @description Seconds a code stays valid (default 300). */
            code_ttl_seconds?: number;
            /** @description Codes one client address may request per day (default 50). */
            codes_per_ip_per_day?: number;
            /** @description Codes one number may request per day from one client address (default 10); from all addresses together, five times that. */
            codes_per_phone_per_day?: number;
            /** @description Credits a new account starts with (default 100). */
            default_credit_quota?: number;
            /** @description Login attempts per client address per hour before 429 (default 100). */
            login_attempts_per_ip_per_hour?: number;
            /** @description Login attempts per number and client address per hour before 429 (default 10). */
            login_attempts_per_phone_per_hour?: number;
            /** @description Largest accepted upload in bytes (default 20 MiB). */
            max_upload_bytes?: number;
        };
        /** @description A reusable ability a character or canvas can use: instructions plus the parameters it takes. */
        Skill: {
            /** Format: date-time */
            created_at: string;
            /** @description What the skill does. */
            description: string;
            /** Format: uuid */
            id: string;
            /** @description The prompt that carries out the skill. */
            instructions: string;
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** @description JSON Schema of the parameters the skill takes. */
            parameters: Record<string, unknown>;
            /** @description Free-form labels for search and grouping. */
            tags: string[];
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        SkillCreate: {
            /** @description What the skill does. */
            description?: string;
            /** @description The prompt that carries out the skill. */
            instructions?: string;
            /** @description Display name. */
            name: string;
            /** @description JSON Schema of the parameters the skill takes. */
            parameters?: Record<string, unknown>;
            /** @description Free-form labels for search and grouping. */
            tags?: string[];
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        SkillUpdate: {
            /** @description What the skill does. */
            description?: string;
            /** @description The prompt that carries out the skill. */
            instructions?: string;
            /** @description Display name. */
            name?: string;
            /** @description JSON Schema of the parameters the skill takes. */
            parameters?: Record<string, unknown>;
            /** @description Free-form labels for search and grouping. */
            tags?: string[];
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        TextGenerationRequest: {
            /** Format: uuid */
            generator_id: string;
            prompt?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description An entry of the credit ledger: every change of a user's balance. Read-only; users read their own, administrators use scope=all. */
        TransactionLog: {
            /** @description Credits added (positive) or taken (negative). */
            amount: number;
            /** @description The balance right after this entry. */
            balance_after: number;
            /** Format: date-time */
            created_at: string;
            description: string;
            /** Format: uuid */
            id: string;
            /**
             * @description Why the balance moved.
             * @enum {string}
             */
            kind: "grant" | "charge" | "refund" | "topup" | "adjustment" | "invite";
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** @description What caused it, e.g. `payment:<id>` or `invite:<code id>:<user id>`. */
            reference: string | null;
            /**
             * Format: uuid
             * @description For a refund: the charge it reverses.
             */
            reverses_id: string | null;
            /** Format: date-time */
            updated_at: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        User: {
            /** Format: uuid */
            avatar_file_id?: string | null;
            /** @description Credits. */
            balance: number;
            bio: string;
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            id: string;
            /** @description false when the account is banned or disabled. */
            is_active: boolean;
            is_admin: boolean;
            /** Format: date-time */
            last_login_at?: string | null;
            /** @description The `source` of the last login. */
            last_login_source?: string | null;
            nickname: string;
            permissions: {
                /** @description The triples the account holds; `["*"]` for administrators. */
                effective: string[];
                granted: string[];
                revoked: string[];
            };
            phone: string;
            /** Format: date-time */
            updated_at: string;
        };
        UserAdminUpdate: {
            /**
             * Format: uuid
             * @description An existing file (unknown id → 404); null removes the avatar.
             */
            avatar_file_id?: string | null;
            bio?: string;
            /**
             * @description Adds (positive) or removes (negative) credits through the ledger (entry kind
             *     `adjustment`). The balance never goes below zero: such an adjustment answers 422 and
             *     changes nothing. With `reference`, repeating the same adjustment of the same account moves
             *     credits once; references are per account, so one reference may serve many accounts.
             */
            credit_adjustment?: {
                amount: number;
                reason: string;
                reference?: string;
            };
            /** @description false bans the account, true unbans it. */
            is_active?: boolean;
            nickname?: string;
        };
        /** @description A user's personal settings for chatting with one character (one per user and character). */
        UserCharacterConfig: {
            /**
             * Format: uuid
             * @description The character; one the caller may read.
             */
            character_id: string;
            /** Format: date-time */
            created_at: string;
            /** @description Extra instructions appended to the character's persona. */
            extra_prompt: string;
            /** Format: uuid */
            id: string;
            /** @description Whether the character remembers earlier conversations. */
            memory_enabled: boolean;
            /**
             * Format: uuid
             * @description The user who created it.
             */
            owner_id: string;
            /** @description Sampling temperature; null uses the default. */
            temperature: number | null;
            /** Format: date-time */
            updated_at: string;
            /** @description How the character addresses the user. */
            user_nickname: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility: "private" | "public";
        };
        UserCharacterConfigCreate: {
            /**
             * Format: uuid
             * @description The character; one the caller may read.
             */
            character_id: string;
            /** @description Extra instructions appended to the character's persona. */
            extra_prompt?: string;
            /** @description Whether the character remembers earlier conversations. */
            memory_enabled?: boolean;
            /** @description Sampling temperature; null uses the default. */
            temperature?: number | null;
            /** @description How the character addresses the user. */
            user_nickname?: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        UserCharacterConfigUpdate: {
            /** @description Extra instructions appended to the character's persona. */
            extra_prompt?: string;
            /** @description Whether the character remembers earlier conversations. */
            memory_enabled?: boolean;
            /** @description Sampling temperature; null uses the default. */
            temperature?: number | null;
            /** @description How the character addresses the user. */
            user_nickname?: string;
            /**
             * @description private: only the owner (and administrators) may read it; public: every user may read it.
             * @enum {string}
             */
            visibility?: "private" | "public";
        };
        UserProfileUpdate: {
            /**
             * Format: uuid
             * @description A file the caller may read (their own or a public one); null removes the avatar.
             */
            avatar_file_id?: string | null;
            bio?: string;
            nickname?: string;
        };
        UserStats: {
            active: number;
            administrators: number;
            banned: number;
            /** @description Accounts that logged in during the last 24 hours. */
            logged_in_last_day: number;
            /** @description Accounts created in the last 24 hours. */
            new_last_day: number;
            /** @description Accounts created in the last 30 days. */
            new_last_month: number;
            /** @description Accounts created in the last 7 days. */
            new_last_week: number;
            total: number;
        };
        VideoGenerationRequest: {
            /** @description Seconds; each started 5 s costs base_cost. */
            duration?: number;
            /** Format: uuid */
            generator_id: string;
            prompt?: string;
            /** @description Completed files the caller may read (own or public). A missing, unreadable or unfinished one answers 422 naming its index. */
            reference_file_ids?: string[];
        } & {
            [key: string]: unknown;
        };
    };
    responses: {
        /** @description The account is disabled, or the caller lacks the permission (e.g. scope=all without being an administrator). */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Accepted and charged; the result files are pending. */
        GenerationAccepted: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["GenerationResponse"];
            };
        };
        /** @description A page of the active generators of this kind (a plain array), sorted and paginated like every list */
        GeneratorList: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Generator"][];
            };
        };
        /** @description The balance is lower than the task's cost; nothing was charged or created. */
        InsufficientBalance: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such resource, or another user's private one (the same answer, to hide existence). */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The database is saturated (no free connection within MUSE_DB_ACQUIRE_TIMEOUT_MS, or a statement ran past MUSE_DB_STATEMENT_TIMEOUT_MS); nothing was changed. Retry after the given seconds. */
        Overloaded: {
            headers: {
                "Retry-After"?: number;
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request conflicts with the current state (a duplicate, or a state that no longer allows it). */
        ResourceConflict: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The token is missing, invalid or expired (header WWW-Authenticate is Bearer). */
        Unauthorized: {
            headers: {
                "WWW-Authenticate"?: string;
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request is not valid; `details` lists each failing path and why. */
        ValidationFailed: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description Only rows created after this ISO 8601 date-time. */
        CreatedAfter: string;
        /** @description Only rows created before this ISO 8601 date-time. */
        CreatedBefore: string;
        /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
        Desc: boolean;
        /**
         * @description Any string up to 200 characters, unique per request the client means. Submitting again
         *     with the same key (also concurrently) answers the first task's `file_ids` and charges
         *     nothing more; the same key with a different body answers 409.
         */
        IdempotencyKey: string;
        /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
        Limit: number;
        /** @description Rows to skip. Past the end the answer is `[]`. */
        Offset: number;
        Order: "created_at" | "updated_at";
        /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
        Scope: "own" | "public" | "all";
        /** @description Only rows updated after this ISO 8601 date-time. */
        UpdatedAfter: string;
        /** @description Only rows updated before this ISO 8601 date-time. */
        UpdatedBefore: string;
    };
    requestBodies: never;
    headers: {
        /** @description Names the request in the server's logs. A caller's X-Request-Id of 1 to 128 letters, digits and `._:-` is echoed; otherwise the server generates a UUID. */
        RequestId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    phone: components["schemas"]["AuthPhoneNumber"];
                    /** @description The client logging in, e.g. `web`, `app`, `cli`; recorded with the login time. */
                    source?: string;
                    /** @description The code that was sent (6 digits); any other value is a wrong code (400). */
                    verification_code: string;
                };
            };
        };
        responses: {
            /** @description Logged in. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Bearer token: send it as `Authorization: Bearer <token>`. */
                        token: string;
                    };
                };
            };
            /** @description The code is wrong, expired, already used, or none was requested (code `bad_request`). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The account of this number is disabled (banned). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            /** @description Too many login attempts for this number or from this address; `Retry-After` says when to try again. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    requestVerificationCode: {
        parameters: {
            query: {
                /** @description How to deliver the code. */
                code_type?: "sms" | "voice";
                /** @description 11-digit mainland mobile number, e.g. 13800138000 (no country code). */
                phone_number: components["schemas"]["AuthPhoneNumber"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The code was sent. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            422: components["responses"]["ValidationFailed"];
            /**
             * @description Too soon after the previous code for this number (cool-down), or the number or the
             *     client address used up its codes for the day. `Retry-After` says when to try again.
             */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No enabled provider can deliver this kind of code (code `not_implemented`). */
            501: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Every enabled provider failed to deliver the code (code `code_delivery_failed`); nothing is stored, so asking again is allowed at once. */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    listBundles: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's; public: public ones; all: every one (administrators only, 403 otherwise). */
                scope?: "own" | "public" | "all";
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bundle"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createBundle: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BundleCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bundle"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bundle"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BundleUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bundle"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listCanvases: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description Only rows whose project_id equals this. */
                project_id?: string;
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Canvas"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createCanvas: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CanvasCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Canvas"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getCanvas: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The canvas */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Canvas"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteCanvas: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateCanvas: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CanvasUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Canvas"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listCharacters: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Character"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createCharacter: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CharacterCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Character"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getCharacter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The character */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Character"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteCharacter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateCharacter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CharacterUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Character"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listConversations: {
        parameters: {
            query?: {
                /** @description Only rows whose character_id equals this. */
                character_id?: string | null;
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createConversation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    openConversationSocket: {
        parameters: {
            query: {
                /** @description The bearer token. */
                token: string;
            };
            header?: never;
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching to the WebSocket protocol. */
            101: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            /** @description A plain GET, not an upgrade */
            426: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description This client address holds MUSE_WS_MAX_SOCKETS_PER_ADDRESS sockets on this process (`too_many_connections`, with Retry-After), or this account holds MUSE_WS_MAX_SOCKETS_PER_USER (`too_many_sockets`). */
            429: {
                headers: {
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description MUSE_WS_MAX_PENDING connections are being admitted at once (`server_busy`), or the process is shutting down (`shutting_down`); retry after the given seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The conversation */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listConversationMessages: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path: {
                /** @description The conversation id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationMessage"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createConversationMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The conversation id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    client_id?: components["schemas"]["ClientMessageId"];
                    content: string;
                    /** @enum {string} */
                    role: "user" | "assistant" | "system";
                };
            };
        };
        responses: {
            /** @description This client_id was already stored by the caller: the stored message, nothing added */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationMessage"];
                };
            };
            /** @description Added */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationMessage"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listFavorites: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows whose target_type equals this. */
                target_type?: "character" | "conversation" | "project" | "canvas" | "file" | "skill" | "node_group";
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Favorite"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createFavorite: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FavoriteCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Favorite"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getFavorite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The favorite */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Favorite"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteFavorite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateFavorite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FavoriteUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Favorite"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listFiles: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of files (a plain array; `[]` past the end) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["File"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    uploadFile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** Format: binary */
                    file?: string;
                    name?: string;
                    /** @enum {string} */
                    visibility?: "private" | "public";
                };
            };
        };
        responses: {
            /** @description Stored; the record is completed at once */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["File"];
                };
            };
            /** @description The body is not well-formed multipart/form-data. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The file is larger than `max_upload_bytes`; nothing was stored. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file record */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["File"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description Another user's public file, or a missing file:delete:own permission. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description The file is still pending or processing; delete it once its generation ended. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {string} */
                    visibility?: "private" | "public";
                };
            };
        };
        responses: {
            /** @description The changed record */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["File"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Another user's public file (only its owner or an administrator changes it), or a missing file:update:own permission. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    downloadFile: {
        parameters: {
            query: {
                /** @description Unix time the link expires at. */
                expires: string;
                signature: string;
            };
            header?: never;
            path: {
                file_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The content, with its Content-Type. It is served sandboxed (`Content-Security-Policy` sandbox, `X-Content-Type-Options` nosniff), so an uploaded page or SVG never runs as part of this origin. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description The signature is wrong or the link has expired. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    cancelGeneration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                generation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled and refunded. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelledGeneration"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The account is disabled, or lacks generation:create:own. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No generation with this id belongs to the caller (administrators see every one). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The generation already ended (completed or failed); nothing changed. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    generateImages: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Any string up to 200 characters, unique per request the client means. Submitting again
                 *     with the same key (also concurrently) answers the first task's `file_ids` and charges
                 *     nothing more; the same key with a different body answers 409.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImageGenerationRequest"];
            };
        };
        responses: {
            202: components["responses"]["GenerationAccepted"];
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientBalance"];
            /** @description The account is disabled, or lacks generation:create:own. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No active generator of this kind has this id. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Idempotency-Key was used before with a different body. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            /** @description The task could not be queued (Temporal unreachable for 10 s); it was failed and refunded at once, and its Idempotency-Key released. Submitting again is safe. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getGenerationSchema: {
        parameters: {
            query: {
                /** @description A generator id (not a UUID → 422; unknown or inactive → 404). */
                generator_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A JSON Schema (draft-07) of the whole request body, `generator_id` included */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    generateTexts: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Any string up to 200 characters, unique per request the client means. Submitting again
                 *     with the same key (also concurrently) answers the first task's `file_ids` and charges
                 *     nothing more; the same key with a different body answers 409.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TextGenerationRequest"];
            };
        };
        responses: {
            202: components["responses"]["GenerationAccepted"];
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientBalance"];
            /** @description The account is disabled, or lacks generation:create:own. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No active generator of this kind has this id. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Idempotency-Key was used before with a different body. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            /** @description The task could not be queued (Temporal unreachable for 10 s); it was failed and refunded at once, and its Idempotency-Key released. Submitting again is safe. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    generateVideos: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Any string up to 200 characters, unique per request the client means. Submitting again
                 *     with the same key (also concurrently) answers the first task's `file_ids` and charges
                 *     nothing more; the same key with a different body answers 409.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VideoGenerationRequest"];
            };
        };
        responses: {
            202: components["responses"]["GenerationAccepted"];
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientBalance"];
            /** @description The account is disabled, or lacks generation:create:own. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No active generator of this kind has this id. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Idempotency-Key was used before with a different body. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            /** @description The task could not be queued (Temporal unreachable for 10 s); it was failed and refunded at once, and its Idempotency-Key released. Submitting again is safe. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createGenerator: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GeneratorInput"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeneratorAdmin"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Another generator has this name. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getGenerator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                generator_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The generator */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeneratorAdmin"] | components["schemas"]["Generator"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deactivateGenerator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                generator_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deactivated */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateGenerator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                generator_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GeneratorPatch"];
            };
        };
        responses: {
            /** @description The changed generator */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeneratorAdmin"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description Another generator has this name. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listImageGenerators: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["GeneratorList"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listTextGenerators: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["GeneratorList"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listVideoGenerators: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["GeneratorList"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listInviteCodes: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InviteCode"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createInviteCode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InviteCodeCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InviteCode"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getInviteCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invite_code */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InviteCode"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteInviteCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateInviteCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InviteCodeUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InviteCode"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    redeemInviteCode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Redeemed */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InviteRedemption"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            /** @description Too many codes tried by this account this hour; `Retry-After` says when to try again. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    listNodeGroups: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeGroup"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createNodeGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NodeGroupCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeGroup"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getNodeGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The node_group */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeGroup"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteNodeGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateNodeGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NodeGroupUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeGroup"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getPaymentApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The configuration; secrets appear only by name in `secrets_set`. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentApi"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Overloaded"];
        };
    };
    updatePaymentApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentApiUpdate"];
            };
        };
        responses: {
            /** @description The configuration after the change. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentApi"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listPayments: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows whose status equals this. */
                status?: "pending" | "paid" | "failed" | "cancelled";
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createPayment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deletePayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updatePayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listProjects: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createProject: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The project */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getServerConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole record, defaults included. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServerConfig"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateServerConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ServerConfigUpdate"];
            };
        };
        responses: {
            /** @description The whole record after the change. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServerConfig"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listSkills: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createSkill: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SkillCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skill */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SkillUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listTransactionLogs: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Only rows whose kind equals this. */
                kind?: "grant" | "charge" | "refund" | "topup" | "adjustment" | "invite";
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionLog"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getTransactionLog: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction_log */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionLog"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listUserCharacterConfigs: {
        parameters: {
            query?: {
                /** @description Only rows whose character_id equals this. */
                character_id?: string;
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserCharacterConfig"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createUserCharacterConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserCharacterConfigCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserCharacterConfig"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getUserCharacterConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user_character_config */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserCharacterConfig"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteUserCharacterConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateUserCharacterConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource id (UUID). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserCharacterConfigUpdate"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserCharacterConfig"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ResourceConflict"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description own: the caller's resources; public: public resources; all: every resource (administrators only, 403 otherwise). */
                scope?: components["parameters"]["Scope"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of accounts. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserAdminUpdate"];
            };
        };
        responses: {
            /** @description The changed account. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request is not valid, or the credit adjustment would take the balance below zero (nothing is changed). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    updateUserPermission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    grant?: string[];
                    is_admin?: boolean;
                    reset?: string[];
                    revoke?: string[];
                };
            };
        };
        responses: {
            /** @description The changed account. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's account. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserProfileUpdate"];
            };
        };
        responses: {
            /** @description The changed account. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `avatar_file_id` names no file the caller may read (missing, or another user's private file); nothing is changed. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getUserStats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Counts of accounts. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserStats"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Overloaded"];
        };
    };
    listVerificationCodeProviders: {
        parameters: {
            query?: {
                /** @description Only rows created after this ISO 8601 date-time. */
                created_after_datetime?: components["parameters"]["CreatedAfter"];
                /** @description Only rows created before this ISO 8601 date-time. */
                created_before_datetime?: components["parameters"]["CreatedBefore"];
                /** @description Newest first when true. Ties on the timestamp are broken by `id` in the same direction, so pages are stable. */
                desc?: components["parameters"]["Desc"];
                /** @description Rows to return, 1 to 100 (0, negative or more than 100 answer 422). */
                limit?: components["parameters"]["Limit"];
                /** @description Rows to skip. Past the end the answer is `[]`. */
                offset?: components["parameters"]["Offset"];
                order?: components["parameters"]["Order"];
                /** @description Only rows updated after this ISO 8601 date-time. */
                updated_after_datetime?: components["parameters"]["UpdatedAfter"];
                /** @description Only rows updated before this ISO 8601 date-time. */
                updated_before_datetime?: components["parameters"]["UpdatedBefore"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Providers, by ascending priority. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CodeProvider"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    createVerificationCodeProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CodeProviderCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CodeProvider"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description A provider with this name exists. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request is not valid, the `config` or `secrets` do not fit the type, or the type is development-only (`log`) and the server runs in production. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    getVerificationCodeProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The provider. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CodeProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    deleteVerificationCodeProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    updateVerificationCodeProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CodeProviderUpdate"];
            };
        };
        responses: {
            /** @description The changed provider. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CodeProvider"];
                };
            };
            /** @description The request body is not valid JSON. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description Another provider has this name. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not of a documented media type. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["Overloaded"];
        };
    };
    getAsyncApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The AsyncAPI document */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            503: components["responses"]["Overloaded"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description A dependency is unreachable; `checks` says which and why */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
}

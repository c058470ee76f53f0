import { deleteAttachment, listAttachments, storeUpload } from '../domain/actions/uploads.ts';
import { JsonableError } from '../http/errors.ts';
import { uploadedFiles } from '../http/body.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { lookup } from 'mime-types';

const int = { type: 'integer' };

/**
 * A file's type: the one its part declares, unless that says nothing — a part without a
 * Content-Type reads as text/plain (RFC 7578; the official Python client sends none), or
 * application/octet-stream — then the type of the name's extension, as Zulip guesses it. (Files
 * are served as their type only when it is inert: `uploadedContentHeaders` in @muse/core.)
 */
function fileType(filename: string, declared: string): string {
  if (declared !== 'text/plain' && declared !== 'application/octet-stream') return declared;
  return lookup(filename) || declared;
}
const attachment = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'path_id', 'size', 'create_time', 'messages'],
  properties: {
    id: int,
    name: { type: 'string' },
    path_id: { type: 'string', description: 'The file is at /user_uploads/<path_id>.' },
    size: { ...int, description: 'Bytes.' },
    create_time: { ...int, description: 'UNIX time in milliseconds.' },
    messages: {
      type: 'array',
      description: 'The messages linking the file.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'date_sent'],
        properties: { id: int, date_sent: { ...int, description: 'UNIX time in milliseconds.' } },
      },
    },
  },
};
const MIB = 1024 * 1024;

/** Uploaded files: Zulip's POST /user_uploads, GET /attachments, DELETE /attachments/{id}. */
export const uploadEndpoints = [
  endpoint({
    method: 'post',
    path: '/user_uploads',
    operationId: 'uploadFile',
    summary: 'Upload one file (multipart/form-data, any part name) and get its URL',
    description:
      'At most the organization’s `max_file_upload_size_mib` (25 MiB; a larger file part is 400 ' +
      '"Uploaded file is larger than the allowed limit of 25 MiB"); the whole body may hold 64 KiB ' +
      'beside the file, and one with a larger `Content-Length` is refused with 413 before it is read. ' +
      'One file part (a second one is 400). The file is spooled to a temporary file past 64 KiB, never ' +
      'held whole in memory. The contents are kept by the ' +
      'same storage as the content service’s files (local disk, or S3 when configured). At first only ' +
      'the uploader may download it (`GET /user_uploads/<path>`, Basic auth); a message that links ' +
      'it shares it with those who can see that message.',
    response: {
      required: ['uri', 'url', 'filename'],
      properties: {
        uri: { type: 'string', deprecated: true, description: 'Alias of url.' },
        url: { type: 'string', description: 'Relative to the organization’s URL.' },
        filename: { type: 'string', description: 'The name the file is stored as.' },
      },
    },
    fileLimit: (actor) => actor.realm.max_file_upload_size_mib * MIB,
    example: {
      response: {
        uri: '/user_uploads/1/4e/Xq2fJd0mL8vKp3Wn/plan.pdf',
        url: '/user_uploads/1/4e/Xq2fJd0mL8vKp3Wn/plan.pdf',
        filename: 'plan.pdf',
      },
    },
    view: async (_params, actor, req) => {
      // A second file part was refused while reading the body ("one file at a time").
      const [file] = uploadedFiles(req);
      if (!file) throw new JsonableError('You must specify a file to upload');
      if (file.truncated) {
        const limit = actor.realm.max_file_upload_size_mib;
        throw new JsonableError(`Uploaded file is larger than the allowed limit of ${limit} MiB`);
      }
      return storeUpload(actor, actor.runtime.storage, {
        filename: file.filename,
        contentType: fileType(file.filename, file.mimeType),
        contents: file.open(),
      });
    },
  }),
  endpoint({
    method: 'get',
    path: '/attachments',
    operationId: 'getAttachments',
    summary: "The caller's uploaded files, with the messages linking each",
    description:
      'Every file the caller uploaded with POST /user_uploads, oldest first, each with its name, ' +
      'path_id, size, upload time and the messages that link it (a file no message links yet has ' +
      "none; a client may offer to delete it). upload_space_used is the organization's total, for " +
      'clients that show the quota.',
    response: {
      required: ['attachments', 'upload_space_used'],
      properties: {
        attachments: { type: 'array', items: attachment },
        upload_space_used: { ...int, description: 'Bytes of all files uploaded in the organization.' },
      },
    },
    example: {
      response: {
        attachments: [
          {
            id: 1,
            name: 'plan.pdf',
            path_id: '1/4e/Xq2fJd0mL8vKp3Wn/plan.pdf',
            size: 48213,
            create_time: 1764299940000,
            messages: [{ id: 42, date_sent: 1764300000000 }],
          },
        ],
        upload_space_used: 48213,
      },
    },
    view: (_params, actor) => listAttachments(actor),
  }),
  endpoint({
    method: 'delete',
    path: '/attachments/{attachment_id}',
    operationId: 'removeAttachment',
    summary: 'Delete one of the caller\'s uploads; anyone else\'s, or none, is 400 "Invalid attachment"',
    description:
      'Only the uploader may delete a file. The record goes at once and the contents are removed ' +
      'from storage after the commit; messages that linked it keep the link, which then answers ' +
      "404. The caller's clients get attachment remove. A file of someone else, or an unknown id, " +
      'is 400 "Invalid attachment".',
    params: { attachment_id: p.id() },
    example: { params: { attachment_id: 1 }, response: {} },
    view: async ({ attachment_id }, actor) => {
      await deleteAttachment(actor, actor.runtime.storage, attachment_id);
    },
  }),
];

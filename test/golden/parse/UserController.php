<?php

declare(strict_types=1);

namespace App\Http\Controllers;

use App\Models\User;
use App\Services\{AuditLog, Mailer as OutboundMailer};
use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use function App\Support\paginate;

require_once __DIR__ . '/../../bootstrap/helpers.php';

const MAX_PAGE_SIZE = 100;

/**
 * Something that can be shown to other users.
 */
interface Presentable
{
    public function present(): array;
}

trait ChecksRoles
{
    protected function requireRole(Request $request, string $role): void
    {
        if (!$request->user()?->hasRole($role)) {
            abort(403, "requires role {$role}");
        }
    }
}

enum Status: string
{
    case Active = 'active';
    case Suspended = 'suspended';
}

/**
 * CRUD endpoints for users.
 *
 * Every action checks the caller's role first; writes are recorded in the audit log.
 */
final class UserController extends Controller
{
    use ChecksRoles;

    public const DEFAULT_PAGE_SIZE = 25;

    private AuditLog $audit;

    public function __construct(AuditLog $audit, private OutboundMailer $mailer)
    {
        $this->audit = $audit;
    }

    public function index(Request $request): JsonResponse
    {
        $this->requireRole($request, 'admin');
        $size = min((int) $request->query('size', self::DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
        return new JsonResponse(paginate(User::query()->orderBy('id'), $size));
    }

    public function show(int $id): JsonResponse
    {
        $user = User::findOrFail($id);
        return new JsonResponse($user->present());
    }

    /**
     * Updates a user from the request: name, email, role and status. An email change sends a
     * confirmation to the new address; suspending a user ends their sessions.
     */
    public function update(Request $request, int $id): JsonResponse
    {
        $this->requireRole($request, 'admin');
        $user = User::findOrFail($id);
        $input = $request->json()->all();
        $errors = [];
        $changes = [];

        if (array_key_exists('name', $input)) {
            $name = trim((string) $input['name']);
            if ($name === '') {
                $errors['name'] = 'The name cannot be empty.';
            } elseif (mb_strlen($name) > 120) {
                $errors['name'] = 'The name is longer than 120 characters.';
            } elseif ($name !== $user->name) {
                $changes['name'] = [$user->name, $name];
                $user->name = $name;
            }
        }

        if (array_key_exists('email', $input)) {
            $email = strtolower(trim((string) $input['email']));
            if (!filter_var($email, FILTER_VALIDATE_EMAIL)) {
                $errors['email'] = 'The email address is not valid.';
            } elseif ($email !== $user->email) {
                if (User::where('email', $email)->where('id', '!=', $user->id)->exists()) {
                    $errors['email'] = 'Another user has this email address.';
                } else {
                    $changes['email'] = [$user->email, $email];
                    $user->pending_email = $email;
                }
            }
        }

        if (array_key_exists('role', $input)) {
            $role = (string) $input['role'];
            if (!in_array($role, ['admin', 'editor', 'viewer'], true)) {
                $errors['role'] = "Unknown role {$role}.";
            } elseif ($user->id === $request->user()->id && $role !== 'admin') {
                $errors['role'] = 'You cannot remove your own admin role.';
            } else {
                $changes['role'] = [$user->role, $role];
                $user->role = $role;
            }
        }

        if (array_key_exists('status', $input)) {
            $status = Status::tryFrom((string) $input['status']);
            if ($status === null) {
                $errors['status'] = 'The status must be active or suspended.';
            } elseif ($status !== $user->status) {
                $changes['status'] = [$user->status->value, $status->value];
                $user->status = $status;
            }
        }

        if (array_key_exists('locale', $input)) {
            $locale = str_replace('-', '_', (string) $input['locale']);
            if (!preg_match('/^[a-z]{2}(_[A-Z]{2})?$/', $locale)) {
                $errors['locale'] = 'The locale must look like en or en_GB.';
            } elseif ($locale !== $user->locale) {
                $changes['locale'] = [$user->locale, $locale];
                $user->locale = $locale;
            }
        }

        if ($errors !== []) {
            return new JsonResponse(['errors' => $errors], 422);
        }
        if ($changes === []) {
            return new JsonResponse($user->present());
        }

        $user->save();
        if (isset($changes['email'])) {
            $this->mailer->send($user->pending_email, 'confirm-email', ['user' => $user]);
        }
        if (($changes['status'][1] ?? null) === Status::Suspended->value) {
            $user->sessions()->delete();
            $user->tokens()->delete();
        }
        foreach ($changes as $field => [$before, $after]) {
            $this->audit->record($request->user(), "user.{$field}", $user->id, $before, $after);
        }
        return new JsonResponse($user->present());
    }

    public function destroy(Request $request, int $id): JsonResponse
    {
        $this->requireRole($request, 'admin');
        User::findOrFail($id)->delete();
        $this->audit->record($request->user(), 'user.deleted', $id);
        return new JsonResponse(null, 204);
    }

    private static function normalize(string $value): string
    {
        return strtolower(trim($value));
    }
}

function user_label(User $user): string
{
    return "{$user->name} <{$user->email}>";
}

function is_admin(User $user): bool
{
    return $user->role === 'admin';
}

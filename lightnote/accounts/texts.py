"""The account pages' texts and errors, in both languages (``lightnote.texts.page_texts``)."""

from __future__ import annotations

from lightnote.texts.i18n import define_messages
from lightnote.texts.page_texts import define_page_texts

ACCOUNT_TEXTS = define_page_texts(
    {
        "ACCOUNT_SIGNUP_TITLE": ("注册", "Sign up"),
        "ACCOUNT_SIGNUP_HEADING": ("注册 LightNote", "Create your LightNote account"),
        "ACCOUNT_USERNAME": ("用户名", "Username"),
        "ACCOUNT_EMAIL": ("邮箱", "Email"),
        "ACCOUNT_PASSWORD": ("密码", "Password"),
        "ACCOUNT_PASSWORD_HINT": (
            "至少 8 个字符，不要用常见密码，也不要全是数字。",
            "At least 8 characters; not a common password, not only digits.",
        ),
        "ACCOUNT_SIGNUP_SUBMIT": ("注册", "Sign up"),
        "ACCOUNT_HAVE_ACCOUNT": ("已有账号？登录", "Already have an account? Log in"),
        "ACCOUNT_SIGNUP_LINK": ("没有账号？注册", "No account yet? Sign up"),
        "ACCOUNT_FORGOT_LINK": ("忘记密码？", "Forgot your password?"),
        "ACCOUNT_SIGNUP_SENT_HEADING": ("请查收邮件", "Check your email"),
        "ACCOUNT_SIGNUP_SENT": (
            "账号已创建。我们向 {email} 发送了一封邮件，打开其中的链接即可验证邮箱。",
            "Your account is ready. We sent a link to {email}: open it to verify the address.",
        ),
        "ACCOUNT_LOGIN_NOW": ("去登录", "Log in"),
        "ACCOUNT_VERIFY_HEADING": ("验证邮箱", "Verify your email"),
        "ACCOUNT_VERIFIED": ("邮箱 {email} 已验证。", "Your address {email} is verified."),
        "ACCOUNT_RESET_HEADING": ("重设密码", "Reset your password"),
        "ACCOUNT_RESET_INTRO": (
            "输入账号的邮箱，我们会发送一个设置新密码的链接。",
            "Enter your account's email address and we will send a link to set a new password.",
        ),
        "ACCOUNT_RESET_SUBMIT": ("发送重设链接", "Send the link"),
        "ACCOUNT_RESET_SENT_HEADING": ("请查收邮件", "Check your email"),
        "ACCOUNT_RESET_SENT": (
            "如果这个邮箱属于某个账号，设置新密码的链接已经发出。",
            "If this address belongs to an account, a link to set a new password is on its way.",
        ),
        "ACCOUNT_RESET_NEW_HEADING": ("设置新密码", "Set a new password"),
        "ACCOUNT_NEW_PASSWORD": ("新密码", "New password"),
        "ACCOUNT_NEW_PASSWORD_AGAIN": ("再次输入新密码", "The new password again"),
        "ACCOUNT_RESET_SAVE": ("保存新密码", "Save the new password"),
        "ACCOUNT_RESET_BAD_LINK": (
            "这个链接无效或已经用过，请重新申请。",
            "This link is not valid or was used already; ask for a new one.",
        ),
        "ACCOUNT_RESET_ASK_AGAIN": ("重新申请", "Ask for a new link"),
        "ACCOUNT_RESET_DONE_HEADING": ("密码已更新", "Password changed"),
        "ACCOUNT_RESET_DONE": (
            "新密码已生效，请用它登录。",
            "Your new password works now; log in with it.",
        ),
        "ACCOUNT_SECTION": ("账号", "Account"),
        "ACCOUNT_EMAIL_VERIFIED": ("已验证", "verified"),
        "ACCOUNT_EMAIL_UNVERIFIED": ("未验证", "not verified"),
        "ACCOUNT_EMAIL_NONE": ("未填写邮箱", "No email address"),
        "ACCOUNT_RESEND": ("重新发送验证邮件", "Send the verification link again"),
        "ACCOUNT_EXPORT": ("导出我的数据（JSON）", "Export my data (JSON)"),
        "ACCOUNT_EXPORT_HINT": (
            "包含你的待办、笔记和对话。",
            "Your todos, notes and conversations, in one file.",
        ),
        "ACCOUNT_DELETE_HEADING": ("删除账号", "Delete the account"),
        "ACCOUNT_DELETE_HINT": (
            "永久删除你的账号和全部数据，无法恢复。请输入密码确认。",
            "Deletes your account and all its data for good. Enter your password to confirm.",
        ),
        "ACCOUNT_DELETE_SUBMIT": ("永久删除账号", "Delete my account for good"),
    }
)

define_messages(
    {
        "SIGNUP_CLOSED": ("本站暂不开放注册。", "Sign-up is closed on this site."),
        "SIGNUP_USERNAME_TAKEN": ("这个用户名已被使用。", "This username is taken."),
        "SIGNUP_USERNAME_INVALID": (
            "用户名须为 1 到 150 个字符，只能包含字母、数字和 @ . + - _。",
            "A username is 1 to 150 letters, digits and @ . + - _ only.",
        ),
        "SIGNUP_EMAIL_INVALID": ("请输入有效的邮箱地址。", "Enter a valid email address."),
        "SIGNUP_PASSWORD_REQUIRED": ("请输入密码。", "Enter a password."),
        "ACCOUNT_PASSWORD_WRONG": ("密码不正确。", "The password is wrong."),
        "ACCOUNT_VERIFY_LINK_BAD": (
            "这个验证链接无效或已过期，请在设置页重新发送。",
            "This verification link is not valid or has expired; send a new one from Settings.",
        ),
        "ACCOUNT_VERIFY_SENT": (
            "验证邮件已发送到 {email}。",
            "A verification link went to {email}.",
        ),
        "ACCOUNT_DELETED": ("账号已删除。", "The account is deleted."),
        "ACCOUNT_VERIFY_SUBJECT": (
            "验证你的 LightNote 邮箱",
            "Verify your LightNote email address",
        ),
        "ACCOUNT_VERIFY_BODY": (
            "{username}，你好：\n\n打开下面的链接验证你的邮箱：\n{link}\n\n"
            "如果这不是你注册的账号，请忽略这封邮件。\n",
            "Hello {username},\n\nOpen this link to verify your email address:\n{link}\n\n"
            "If you did not create this account, ignore this message.\n",
        ),
        "ACCOUNT_RESET_SUBJECT": ("重设你的 LightNote 密码", "Reset your LightNote password"),
        "ACCOUNT_RESET_BODY": (
            "{username}，你好：\n\n打开下面的链接设置新密码（{hours} 小时内有效）：\n{link}\n\n"
            "如果不是你申请的，请忽略这封邮件，密码不会改变。\n",
            "Hello {username},\n\nOpen this link to set a new password "
            "(it works for {hours} {hours:hour|hours}):\n{link}\n\n"
            "If you did not ask for it, ignore this message: your password stays as it is.\n",
        ),
    }
)

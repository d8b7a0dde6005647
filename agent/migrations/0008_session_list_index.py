# The session list's index matches its filter (live, no admin context) and its whole
# sort (latest activity first, then id descending), so a page is read off the index without
# a filesort. The new index is added before the old one is dropped, so an index led by
# owner_id (the foreign key's) exists throughout.

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agent', '0006_choice'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='agentsession',
            index=models.Index(fields=['owner', 'deleted_at', 'admin_context', '-updated_at', '-id'], name='session_owner_live_idx'),
        ),
        migrations.RemoveIndex(
            model_name='agentsession',
            name='agent_agent_owner_i_e1b1c6_idx',
        ),
    ]

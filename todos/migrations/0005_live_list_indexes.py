# The list indexes cover the live filter (deleted_at IS NULL) as well as the sort: a page and
# the capped count read the index alone. The new indexes are added before the old ones are
# dropped, so an index led by owner_id (the foreign key's) exists throughout.

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('todos', '0003_trash'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='todo',
            index=models.Index(fields=['owner', 'deleted_at', '-created_at', 'id'], name='todo_owner_live_idx'),
        ),
        migrations.AddIndex(
            model_name='todo',
            index=models.Index(fields=['owner', 'deleted_at', 'status', '-created_at', 'id'], name='todo_owner_live_status_idx'),
        ),
        migrations.RemoveIndex(
            model_name='todo',
            name='todos_todo_owner_i_506107_idx',
        ),
        migrations.RemoveIndex(
            model_name='todo',
            name='todo_owner_created_idx',
        ),
    ]

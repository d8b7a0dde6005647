# The list index covers the live filter (deleted_at IS NULL) as well as the sort: a page and
# the capped count read the index alone. The new index is added before the old one is
# dropped, so an index led by owner_id (the foreign key's) exists throughout.

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('notes', '0003_trash'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='note',
            index=models.Index(fields=['owner', 'deleted_at', '-updated_at', 'id'], name='note_owner_live_idx'),
        ),
        migrations.RemoveIndex(
            model_name='note',
            name='note_owner_updated_idx',
        ),
    ]

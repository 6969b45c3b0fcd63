json_object(
    'type', 'transactions',
    'id', id,
    'attributes', json_object(
        'status', status,
        'rawText', raw_text,
        'description', description,
        'message', message,
        'isCategorizable', json(CASE WHEN is_categorizable THEN 'true' ELSE 'false' END),
        'holdInfo', json(CASE WHEN hold_amount_currency IS NOT NULL THEN json_object(
            'amount', json_object('currencyCode', hold_amount_currency, 'value', hold_amount_value, 'valueInBaseUnits', hold_amount_base_units),
            'foreignAmount', json(CASE WHEN hold_foreign_amount_currency IS NOT NULL THEN json_object('currencyCode', hold_foreign_amount_currency,
                'value', hold_foreign_amount_value, 'valueInBaseUnits', hold_foreign_amount_base_units) END)) END),
        'roundUp', json(CASE WHEN round_up_amount_currency IS NOT NULL THEN json_object(
            'amount', json_object('currencyCode', round_up_amount_currency, 'value', round_up_amount_value, 'valueInBaseUnits', round_up_amount_base_units),
            'boostPortion', json(CASE WHEN round_up_boost_currency IS NOT NULL THEN json_object('currencyCode', round_up_boost_currency,
                'value', round_up_boost_value, 'valueInBaseUnits', round_up_boost_base_units) END)) END),
        'cashback', json(CASE WHEN cashback_amount_currency IS NOT NULL THEN json_object(
            'description', cashback_description,
            'amount', json_object('currencyCode', cashback_amount_currency, 'value', cashback_amount_value, 'valueInBaseUnits', cashback_amount_base_units)) END),
        'amount', json_object('currencyCode', amount_currency, 'value', amount_value, 'valueInBaseUnits', amount_base_units),
        'foreignAmount', json(CASE WHEN foreign_amount_currency IS NOT NULL THEN json_object('currencyCode', foreign_amount_currency,
            'value', foreign_amount_value, 'valueInBaseUnits', foreign_amount_base_units) END),
        'cardPurchaseMethod', json(CASE WHEN card_purchase_method IS NOT NULL THEN json_object(
            'method', card_purchase_method, 'cardNumberSuffix', card_number_suffix) END),
        'settledAt', settled_at,
        'createdAt', created_at,
        'transactionType', transaction_type,
        'note', json(CASE WHEN note IS NOT NULL THEN json_object('text', note) END),
        'performingCustomer', json(CASE WHEN performing_customer IS NOT NULL THEN json_object('displayName', performing_customer) END),
        'deepLinkURL', deep_link_url),
    'relationships', json_object(
        'account', json_object('data', json_object('type', 'accounts', 'id', account_id),
            'links', json_object('related', raw_base || '/accounts/' || account_id)),
        'transferAccount', json(CASE WHEN transfer_account_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'accounts', 'id', transfer_account_id),
            'links', json_object('related', raw_base || '/accounts/' || transfer_account_id)) END),
        'category', json_object(
            'data', json(CASE WHEN category_id IS NOT NULL THEN json_object('type', 'categories', 'id', category_id) END),
            'links', json(CASE WHEN category_id IS NULL
                THEN json_object('self', raw_base || '/transactions/' || id || '/relationships/category')
                ELSE json_object('self', raw_base || '/transactions/' || id || '/relationships/category',
                    'related', raw_base || '/categories/' || category_id) END)),
        'parentCategory', json(CASE WHEN parent_category_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'categories', 'id', parent_category_id),
            'links', json_object('related', raw_base || '/categories/' || parent_category_id)) END),
        'tags', json_object('data', json_array(),
            'links', json_object('self', raw_base || '/transactions/' || id || '/relationships/tags')),
        'attachment', json(CASE WHEN attachment_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'attachments', 'id', attachment_id),
            'links', json_object('related', raw_base || '/attachments/' || attachment_id)) END)),
    'links', json_object('self', raw_base || '/transactions/' || id))

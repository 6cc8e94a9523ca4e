// The Sparkplug B payload schema (docs/protocols/sparkplug.md: `sparkplug_b.proto`, proto2, package
// org.eclipse.tahu.protobuf), written from the field list there as a protobufjs JSON descriptor: field names, numbers
// and types only. Extension ranges are left out (protobufjs skips unknown fields, so a payload using them still
// decodes).
import protobuf from 'protobufjs'

const uint64 = 'uint64'
const field = (id: number, type: string, rule?: 'repeated'): { id: number, type: string, rule?: string } =>
  rule === undefined ? { id, type } : { id, type, rule }

/** A value oneof with the scalar members every value holder of §4.2 shares, from field `first` on. */
function scalarValues (first: number): Record<string, { id: number, type: string }> {
  return {
    int_value: field(first, 'uint32'),
    long_value: field(first + 1, uint64),
    float_value: field(first + 2, 'float'),
    double_value: field(first + 3, 'double'),
    boolean_value: field(first + 4, 'bool'),
    string_value: field(first + 5, 'string')
  }
}

const payload = {
  Payload: {
    // proto2 (§4.2): optional fields have explicit presence, so a 0 (seq 0, a false, an empty string) is sent.
    edition: 'proto2',
    fields: {
      timestamp: field(1, uint64),
      metrics: field(2, 'Metric', 'repeated'),
      seq: field(3, uint64),
      uuid: field(4, 'string'),
      body: field(5, 'bytes')
    },
    nested: {
      MetaData: {
        fields: {
          is_multi_part: field(1, 'bool'),
          content_type: field(2, 'string'),
          size: field(3, uint64),
          seq: field(4, uint64),
          file_name: field(5, 'string'),
          file_type: field(6, 'string'),
          md5: field(7, 'string'),
          description: field(8, 'string')
        }
      },
      PropertyValue: {
        oneofs: { value: { oneof: ['int_value', 'long_value', 'float_value', 'double_value', 'boolean_value', 'string_value', 'propertyset_value', 'propertysets_value'] } },
        fields: {
          type: field(1, 'uint32'),
          is_null: field(2, 'bool'),
          ...scalarValues(3),
          propertyset_value: field(9, 'PropertySet'),
          propertysets_value: field(10, 'PropertySetList')
        }
      },
      PropertySet: { fields: { keys: field(1, 'string', 'repeated'), values: field(2, 'PropertyValue', 'repeated') } },
      PropertySetList: { fields: { propertyset: field(1, 'PropertySet', 'repeated') } },
      DataSet: {
        fields: {
          num_of_columns: field(1, uint64),
          columns: field(2, 'string', 'repeated'),
          types: field(3, 'uint32', 'repeated'),
          rows: field(4, 'Row', 'repeated')
        },
        nested: {
          DataSetValue: {
            oneofs: { value: { oneof: ['int_value', 'long_value', 'float_value', 'double_value', 'boolean_value', 'string_value'] } },
            fields: scalarValues(1)
          },
          Row: { fields: { elements: field(1, 'DataSetValue', 'repeated') } }
        }
      },
      Template: {
        fields: {
          version: field(1, 'string'),
          metrics: field(2, 'Metric', 'repeated'),
          parameters: field(3, 'Parameter', 'repeated'),
          template_ref: field(4, 'string'),
          is_definition: field(5, 'bool')
        },
        nested: {
          Parameter: {
            oneofs: { value: { oneof: ['int_value', 'long_value', 'float_value', 'double_value', 'boolean_value', 'string_value'] } },
            fields: { name: field(1, 'string'), type: field(2, 'uint32'), ...scalarValues(3) }
          }
        }
      },
      Metric: {
        oneofs: { value: { oneof: ['int_value', 'long_value', 'float_value', 'double_value', 'boolean_value', 'string_value', 'bytes_value', 'dataset_value', 'template_value'] } },
        fields: {
          name: field(1, 'string'),
          alias: field(2, uint64),
          timestamp: field(3, uint64),
          datatype: field(4, 'uint32'),
          is_historical: field(5, 'bool'),
          is_transient: field(6, 'bool'),
          is_null: field(7, 'bool'),
          metadata: field(8, 'MetaData'),
          properties: field(9, 'PropertySet'),
          ...scalarValues(10),
          bytes_value: field(16, 'bytes'),
          dataset_value: field(17, 'DataSet'),
          template_value: field(18, 'Template')
        }
      }
    }
  }
}

const descriptor = { nested: { org: { nested: { eclipse: { nested: { tahu: { nested: { protobuf: { nested: payload } } } } } } } } }

/** The Payload message type, built once. */
export const PayloadType: protobuf.Type = protobuf.Root.fromJSON(descriptor).lookupType('org.eclipse.tahu.protobuf.Payload')
